/**
 * @module A pager for human output longer than the screen, as git and gh do (docs/cli.md, "Pager"):
 * `$KB_PAGER`, else `$PAGER`, else `less -FRX`; empty or `cat` means none. The command is split into words
 * and run without a shell; only one that uses shell syntax (a pipe, `$VAR`, redirections) goes to `sh -c`.
 */
import {spawn} from 'node:child_process'
import {displayWidth} from './format.js'

/** The pager command as configured, or null for none. */
export function pagerCommand(env: NodeJS.ProcessEnv = process.env): string | null {
  const cmd = (env.KB_PAGER ?? env.PAGER ?? 'less -FRX').trim()
  return cmd === '' || cmd === 'cat' ? null : cmd
}

/**
 * `cmd` as an argument vector, split as sh would split words made of plain characters, quotes and
 * backslashes; null when it needs a shell (operators, expansions, globs), which then runs it.
 */
export function splitCommand(cmd: string): string[] | null {
  const words: string[] = []
  let word: string | null = null
  for (let i = 0; i < cmd.length; i++) {
    const c = cmd[i]!
    if (c === ' ' || c === '\t') {
      if (word !== null) words.push(word)
      word = null
    } else if (c === "'") {
      const end = cmd.indexOf("'", i + 1)
      if (end === -1) return null
      word = (word ?? '') + cmd.slice(i + 1, end)
      i = end
    } else if (c === '"') {
      let text = ''
      for (i++; i < cmd.length && cmd[i] !== '"'; i++) {
        if ('$`'.includes(cmd[i]!)) return null
        if (cmd[i] === '\\' && i + 1 < cmd.length && '"\\$`\n'.includes(cmd[i + 1]!)) i++
        text += cmd[i]
      }
      if (i >= cmd.length) return null
      word = (word ?? '') + text
    } else if (c === '\\') {
      if (i + 1 >= cmd.length) return null
      word = (word ?? '') + cmd[++i]
    } else if ('|&;<>()$`*?[]{}~#=\n'.includes(c)) {
      // `=` too: `LESS=R less` is an assignment only a shell understands.
      return null
    } else word = (word ?? '') + c
  }
  if (word !== null) words.push(word)
  return words.length > 0 ? words : null
}

/** Terminal rows `text` fills on a screen `columns` wide (long lines wrap). */
export function screenRows(text: string, columns: number): number {
  let rows = 0
  for (const line of text.replace(/\n$/, '').split('\n')) rows += Math.max(1, Math.ceil(displayWidth(line) / columns))
  return rows
}

/**
 * Shows `text` through the pager and resolves when the pager exits; resolves false (nothing shown) when the
 * pager cannot be started, so the caller prints it itself.
 */
export async function page(text: string, cmd: string, env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  const argv = splitCommand(cmd)
  // As git does: less and lv show colours and quit on a short text unless the user configured them.
  const childEnv = {...env, LESS: env.LESS ?? 'FRX', LV: env.LV ?? '-c'}
  const child = argv
    ? spawn(argv[0]!, argv.slice(1), {stdio: ['pipe', 'inherit', 'inherit'], env: childEnv})
    : spawn('/bin/sh', ['-c', cmd], {stdio: ['pipe', 'inherit', 'inherit'], env: childEnv})
  // Ctrl-C belongs to the pager (less uses it to stop a search); kb waits for it to exit.
  const ignore = (): void => undefined
  process.on('SIGINT', ignore)
  try {
    return await new Promise<boolean>((resolve) => {
      child.once('error', () => resolve(false))
      child.once('close', () => resolve(true))
      // The reader may quit before reading everything: that is not an error.
      child.stdin!.on('error', () => undefined)
      child.stdin!.end(text)
    })
  } finally {
    process.off('SIGINT', ignore)
  }
}
