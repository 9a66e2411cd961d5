/**
 * A tmux server of the test's own (a socket in its temp dir, no config), so a person's tmux is never
 * touched: panes running the built `kb browse`, their screen, their raw output (pipe-pane) and keys.
 * Every wait polls; there are no fixed sleeps except where a test is about timing. Tests that use it
 * take `requireSystem('tmux')` (test/helpers/system.ts): skipped, saying why, where tmux is missing.
 */
import {execFile} from 'node:child_process'
import {existsSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {promisify} from 'node:util'
import {KB_BIN} from '../../helpers/daemon.js'

const exec = promisify(execFile)

export async function until<T>(probe: () => Promise<T> | T, ok: (v: T) => boolean, what: string, ms = 15_000): Promise<T> {
  const end = Date.now() + ms
  for (;;) {
    const v = await probe()
    if (ok(v)) return v
    if (Date.now() > end) throw new Error(`${what} within ${ms} ms; last: ${typeof v === 'string' ? `\n${v}` : JSON.stringify(v)}`)
    await new Promise((r) => setTimeout(r, 40))
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

export class Tmux {
  readonly socket: string

  constructor(
    readonly root: string,
    readonly env: Record<string, string>,
  ) {
    this.socket = join(root, 'tmux.sock')
  }

  async run(...args: string[]): Promise<string> {
    return (await exec('tmux', ['-S', this.socket, '-f', '/dev/null', ...args], {env: this.env})).stdout
  }

  /** The server stays up between sessions; set-clipboard on, so an OSC 52 that got through would make a buffer. */
  async start(): Promise<void> {
    await this.run(
      'start-server',
      ';',
      'set-option',
      '-g',
      'exit-empty',
      'off',
      ';',
      'set-option',
      '-g',
      'set-clipboard',
      'on',
      ';',
      'set-option',
      '-g',
      'history-limit',
      '5000',
    )
  }

  async stop(): Promise<void> {
    await exec('tmux', ['-S', this.socket, 'kill-server']).catch(() => undefined)
  }

  /** A pane of `columns`×`rows` running `script` (sh), its raw output recorded from the start. */
  async pane(name: string, script: string, size = {columns: 100, rows: 30}): Promise<Pane> {
    const go = join(this.root, `${name}.go`)
    const out = join(this.root, `${name}.out`)
    // The script waits for pipe-pane to be in place, so the recording misses nothing.
    await this.run(
      'new-session',
      '-d',
      '-x',
      String(size.columns),
      '-y',
      String(size.rows),
      '-s',
      name,
      `while [ ! -e ${go} ]; do sleep 0.02; done; ${script}`,
    )
    await this.run('pipe-pane', '-o', '-t', name, `cat >> ${out}`)
    await exec('touch', [go])
    return new Pane(this, name, out)
  }
}

export class Pane {
  constructor(
    readonly tmux: Tmux,
    readonly name: string,
    readonly outFile: string,
  ) {}

  screen(): Promise<string> {
    return this.tmux.run('capture-pane', '-p', '-t', this.name).catch((e: Error) => `(no pane: ${e.message})`)
  }

  /** The whole history and screen. */
  history(): Promise<string> {
    return this.tmux.run('capture-pane', '-p', '-S', '-', '-E', '-', '-t', this.name)
  }

  async display(format: string): Promise<string> {
    return (await this.tmux.run('display-message', '-p', '-t', this.name, format)).trim()
  }

  /** Everything the pane's programs wrote, escape sequences included. */
  output(): string {
    return existsSync(this.outFile) ? readFileSync(this.outFile, 'latin1') : ''
  }

  waitFor(what: string | RegExp, ms = 15_000): Promise<string> {
    return until(
      () => this.screen(),
      (s) => (typeof what === 'string' ? s.includes(what) : what.test(s)),
      `expected ${String(what)} on the tmux screen`,
      ms,
    )
  }

  waitGone(what: string | RegExp, ms = 15_000): Promise<string> {
    return until(
      () => this.screen(),
      (s) => !(typeof what === 'string' ? s.includes(what) : what.test(s)),
      `expected ${String(what)} to leave the tmux screen`,
      ms,
    )
  }

  /** Keys by tmux name (Enter, Escape, C-c, Down, BSpace) or literal characters. */
  async keys(...keys: string[]): Promise<void> {
    await this.tmux.run('send-keys', '-t', this.name, ...keys)
  }

  async text(literal: string): Promise<void> {
    await this.tmux.run('send-keys', '-t', this.name, '-l', literal)
  }

  /** Pastes `text` as a terminal does: bracketed, since kb browse asks for bracketed paste. */
  async paste(text: string): Promise<void> {
    await this.tmux.run('set-buffer', '-b', `${this.name}-paste`, text)
    await this.tmux.run('paste-buffer', '-p', '-d', '-b', `${this.name}-paste`, '-t', this.name)
  }
}

/** The shell command that runs `kb browse <args>` and appends its exit code to `exits`. */
export function browseCommand(args: string[], exits: string, env: Record<string, string> = {}): string {
  const vars = Object.entries(env)
    .map(([k, v]) => `${k}='${v}' `)
    .join('')
  const quoted = args.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ')
  return `${vars}${process.execPath} ${KB_BIN} browse ${quoted}; echo $? >> ${exits}`
}

/** Exit codes written so far to `file`. */
export function exitsIn(file: string): string[] {
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : []
}
