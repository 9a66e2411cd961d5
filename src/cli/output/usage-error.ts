/**
 * @module oclif's own parse errors as the one line every kb error is (docs/cli.md, "Exit codes"): its
 * messages run over several lines ("Parsing --limit" then a tab-indented reason; a missing argument's
 * name on the next line), which would break both the `kb:` line and the `--json` message.
 */

/** oclif's parse-error message folded onto one line, ending with where to read more. */
export function usageLine(message: string): string {
  const text = message.replace(/\nSee more help with --help$/, '')
  // "Parsing --limit \n\tExpected an integer …" → "--limit: expected an integer …"
  const parsing = /^Parsing (--?[\w-]+) ?\n\t*(.*)$/s.exec(text)
  const folded = parsing ? `${parsing[1]}: ${lowerFirst(parsing[2]!)}` : text
  return `${folded
    .split('\n')
    .map((l) => l.trim().replace(/\s+/g, ' '))
    .filter((l) => l !== '')
    .join(' ')} (see --help)`
}

function lowerFirst(s: string): string {
  return s.charAt(0).toLowerCase() + s.slice(1)
}
