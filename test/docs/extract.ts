/**
 * @module The shell examples of the docs, as the docs test runs them: fenced blocks (sh, bash, shell,
 * console or no language) of docs/*.md and README.md. A block whose commands start with `$ ` is a
 * transcript (the lines after a command are its output; `$ echo $?` gives the exit status of the one
 * before); any other block is a script, one command per line (`\` continues a line, `#` lines are
 * comments; a block with `if`/`for`/`while` is one command). Right before the fence, `<!-- not run: <why> -->`
 * skips the block, by name, and `<!-- run with: VAR=value … -->` sets variables for it (a daemon that is down).
 */
import {readFileSync} from 'node:fs'

export interface DocCommand {
  /** 1-based line in the file. */
  line: number
  text: string
  /** Runs kb or curl (the examples the test is about; other lines set up or clean up). */
  example: boolean
  exit: number
  /** A transcript's output lines, when the doc shows some. */
  output: string[] | null
}

export interface DocBlock {
  file: string
  line: number
  notRun: string | null
  /** `run with:` variables. */
  env: Record<string, string>
  commands: DocCommand[]
}

const SHELL_LANGS = new Set(['', 'sh', 'bash', 'shell', 'console'])
/** A command word kb or curl: at the start (after VAR=value words), after a pipe, `;`, `&&` or in `$(…)`. */
const EXAMPLE = /(?:^|[|;&(]\s*|\$\(\s*|^(?:[A-Za-z_][A-Za-z0-9_]*=\S*\s+)+)(?:npx\s+)?(?:kb|curl)(?:\s|$)/

function isExample(text: string): boolean {
  return EXAMPLE.test(text)
}

/** Every shell block of one markdown file that holds at least one kb or curl command. */
export function docBlocks(file: string, text = readFileSync(file, 'utf8')): DocBlock[] {
  const lines = text.split('\n')
  const blocks: DocBlock[] = []
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)\s*$/.exec(lines[i]!)
    if (!open) continue
    let end = i + 1
    while (end < lines.length && !/^```\s*$/.test(lines[end]!)) end++
    const body = lines.slice(i + 1, end)
    const start = i + 2
    let before = i - 1
    while (before >= 0 && lines[before]!.trim() === '') before--
    const marker = before >= 0 ? lines[before]!.trim() : ''
    const notRun = /^<!--\s*not run:\s*(.*?)\s*-->$/.exec(marker)?.[1] ?? null
    const runWith = /^<!--\s*run with:\s*(.*?)\s*-->$/.exec(marker)?.[1] ?? ''
    const env = Object.fromEntries(
      runWith
        .split(/\s+/)
        .filter(Boolean)
        .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
    )
    i = end
    if (!SHELL_LANGS.has(open[1]!)) continue
    const commands = body.some((l) => l.startsWith('$ ')) ? transcript(body, start) : script(body, start)
    if (commands.some((c) => c.example)) blocks.push({file, line: start - 1, notRun, env, commands})
  }
  return blocks
}

function transcript(body: string[], start: number): DocCommand[] {
  const commands: DocCommand[] = []
  for (let j = 0; j < body.length; j++) {
    const l = body[j]!
    if (!l.startsWith('$ ')) {
      const last = commands.at(-1)
      if (last && l.trim() !== '') (last.output ??= []).push(l)
      continue
    }
    const text = l.slice(2).trim()
    if (text === 'echo $?') {
      const last = commands.at(-1)!
      last.exit = Number(body[j + 1])
      j++
      continue
    }
    commands.push({line: start + j, text, example: isExample(text), exit: 0, output: null})
  }
  return commands
}

function script(body: string[], start: number): DocCommand[] {
  if (body.some((l) => /^\s*(if|for|while|case)\s/.test(l))) {
    const text = body.filter((l) => !l.trim().startsWith('#')).join('\n')
    return [{line: start, text, example: body.some((l) => isExample(l.trim())), exit: 0, output: null}]
  }
  const commands: DocCommand[] = []
  for (let j = 0; j < body.length; j++) {
    let text = body[j]!
    const line = start + j
    while (text.endsWith('\\') && j + 1 < body.length) text = `${text.slice(0, -1)} ${body[++j]!.trim()}`
    if (text.trim() === '' || text.trim().startsWith('#')) continue
    commands.push({line, text: text.trim(), example: isExample(text.trim()), exit: 0, output: null})
  }
  return commands
}
