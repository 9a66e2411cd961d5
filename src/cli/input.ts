/**
 * @module What a command reads from the person or the pipe: stdin, $EDITOR, a y/N question. Nothing
 * here ever waits on a person unless both stdin and stdout are terminals and CI is unset.
 */
import {spawnSync} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {KbError} from '../shared/errors.js'
import {readConfig} from './config/config.js'

/** A person is at the keyboard: we may prompt or open an editor. */
export function interactive(env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(process.stdin.isTTY && process.stdout.isTTY) && !env.CI
}

/** stdin is a pipe or a file (not a terminal): it may carry a body. */
export function stdinPiped(): boolean {
  return !process.stdin.isTTY
}

export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = []
  for await (const c of process.stdin) chunks.push(typeof c === 'string' ? Buffer.from(c) : (c as Buffer))
  return Buffer.concat(chunks).toString('utf8')
}

function editorCommand(env: NodeJS.ProcessEnv = process.env): string {
  const configured = readConfig(env).editor
  return (typeof configured === 'string' && configured) || env.VISUAL || env.EDITOR || 'vi'
}

/** Opens the editor on `initial` and returns what was saved. */
export function editText(initial: string, env: NodeJS.ProcessEnv = process.env, suffix = '.md'): string {
  const dir = mkdtempSync(join(tmpdir(), 'kb-edit-'))
  const file = join(dir, `KB_EDIT${suffix}`)
  try {
    writeFileSync(file, initial, {mode: 0o600})
    const editor = editorCommand(env)
    // Through sh, so EDITOR may carry arguments ("code --wait").
    const r = spawnSync('/bin/sh', ['-c', `${editor} "$1"`, 'sh', file], {stdio: 'inherit'})
    if (r.error || r.status !== 0)
      throw new KbError(
        'usage',
        `the editor "${editor}" failed (${r.error?.message ?? `exit ${r.status}`}); set EDITOR or \`kb config set editor <command>\``,
      )
    return readFileSync(file, 'utf8')
  } finally {
    rmSync(dir, {recursive: true, force: true})
  }
}

/** Asks a y/N question on the terminal (stderr, so stdout stays clean). */
export async function confirm(question: string): Promise<boolean> {
  const {createInterface} = await import('node:readline/promises')
  const rl = createInterface({input: process.stdin, output: process.stderr})
  try {
    const answer = await rl.question(`${question} [y/N] `)
    return /^y(es)?$/i.test(answer.trim())
  } finally {
    rl.close()
  }
}

/** Asks on the terminal until one of `keys` (single letters) is typed; end of input counts as the last key. */
export async function choose<K extends string>(question: string, keys: readonly K[]): Promise<K> {
  const {createInterface} = await import('node:readline/promises')
  const rl = createInterface({input: process.stdin, output: process.stderr})
  let closed = false
  rl.once('close', () => (closed = true))
  try {
    for (;;) {
      if (closed) return keys.at(-1)!
      const answer = (await rl.question(`${question} `).catch(() => '')).trim().toLowerCase()
      const key = keys.find((k) => k === answer[0])
      if (key) return key
    }
  } finally {
    rl.close()
  }
}
