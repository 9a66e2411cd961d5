/**
 * @module oclif's own parse errors as the one line every kb error is (docs/cli.md, "Exit codes"): its
 * messages run over several lines ("Parsing --limit" then a tab-indented reason; a missing argument's
 * name on the next line), which would break both the `kb:` line and the `--json` message.
 */
import {closest} from '../did-you-mean.js'

/** Global flags a command does not take, and why (docs/cli.md, "Global flags"). */
const NOT_HERE: Record<string, Record<string, string>> = {
  browse: {'--json': 'it is a terminal UI; in scripts use `kb search --json` or `kb list --json`'},
  mcp: {'--json': 'stdout carries the MCP protocol (JSON-RPC) already'},
  'daemon run': {'--project': 'the daemon serves every project'},
}

/** oclif's parse-error message folded onto one line, ending with where to read more; `flags`: the command's, for "did you mean". */
export function usageLine(message: string, command = '', flags: string[] = []): string {
  const text = message.replace(/\nSee more help with --help$/, '').replace(/^The following errors? occurred:\s*/, '')
  const flag = /^Nonexistent flags?: (--?[\w-]+)/.exec(text)?.[1]
  const why = flag ? NOT_HERE[command]?.[flag] : undefined
  if (why) return `${flag} does not apply to kb ${command}: ${why}`
  const guess = flag?.startsWith('--') ? closest(flag, flags) : undefined
  if (guess) return `unknown flag ${flag}; did you mean ${guess}? (see --help)`
  // "Parsing --limit \n\tExpected an integer …" → "--limit: expected an integer …"
  const parsing = /^Parsing (--?[\w-]+) ?\n\t*(.*)$/s.exec(text)
  // "Missing 1 required arg:\nid  entry id" → "missing argument ID (entry id)"
  const missing = /^Missing \d+ required args?:\n/.exec(text)
  if (missing) return `missing ${text.slice(missing[0].length).split('\n').filter(Boolean).map(argument).join(', ')} (see --help)`
  const folded = parsing ? `${parsing[1]}: ${lowerFirst(parsing[2]!)}` : text
  return `${folded
    .split('\n')
    .map((l) => l.trim().replace(/\s+/g, ' '))
    .filter((l) => l !== '')
    .join(' ')} (see --help)`
}

/** oclif's "name  description" line of a missing argument, as the usage line names it: `argument ID (entry id)`. */
function argument(line: string): string {
  const [name = '', ...rest] = line.trim().split(/\s+/)
  return `argument ${name.toUpperCase()}${rest.length > 0 ? ` (${rest.join(' ')})` : ''}`
}

function lowerFirst(s: string): string {
  return s.charAt(0).toLowerCase() + s.slice(1)
}
