/**
 * `kb browse` end to end in a real terminal: the built binary in a tmux pane (100×30) with its own HOME
 * and XDG folders, talking to a child daemon. Type a query, see the entry, resolve it with `r`, leave
 * with `q`, and confirm through the API. Every wait polls the screen; there are no fixed sleeps.
 * Also: without a terminal, `kb browse` exits 2 and points to `kb search`.
 */
import {execFile} from 'node:child_process'
import {existsSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {promisify} from 'node:util'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {KB_BIN, startChildDaemon, type ChildDaemon} from '../../helpers/daemon.js'
import {cleanup, kb, makeUser, type KbEnv} from '../helpers.js'
import {requireSystem} from '../../helpers/system.js'

const system = requireSystem('tmux')

const exec = promisify(execFile)
// Our own tmux server (a socket in the test's temp dir), so a person's tmux sessions are never touched.
let socket = ''

let d: ChildDaemon
let user: KbEnv
let env: Record<string, string>
/** The tmux session of the running test (one per test, so a failed one cannot block the next). */
let session = ''

const tmux = async (...args: string[]): Promise<string> => (await exec('tmux', ['-S', socket, '-f', '/dev/null', ...args], {env})).stdout

async function screen(): Promise<string> {
  return tmux('capture-pane', '-p', '-t', session)
}

async function waitForScreen(what: string | RegExp, ms = 15_000): Promise<string> {
  const end = Date.now() + ms
  let last = ''
  for (;;) {
    last = await screen().catch((e: Error) => `(no pane: ${e.message})`)
    if (typeof what === 'string' ? last.includes(what) : what.test(last)) return last
    if (Date.now() > end) throw new Error(`expected ${String(what)} on the tmux screen within ${ms} ms; screen:\n${last}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

async function waitUntil(ok: () => boolean, what: string, ms = 15_000): Promise<void> {
  const end = Date.now() + ms
  while (!ok()) {
    if (Date.now() > end) throw new Error(`${what} within ${ms} ms`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

beforeAll(async () => {
  user = makeUser()
  socket = join(user.root, 'tmux.sock')
  d = await startChildDaemon({dataDir: user.dataDir})
  env = {...user.env, KB_BASE_URL: d.url, KB_API_KEY: d.ownerKey, KB_NO_AUTOSTART: '1', TERM: 'xterm-256color'}
  for (const [title, body] of [
    ['Port 7411 already in use', 'Another kb daemon holds the port; `kb daemon stop` it or pass --port.'],
    ['SQLite database is locked', 'Two processes opened the store; only the daemon may.'],
    ['Flaky test on CI runners', 'The runner has two cores; keep each test file under 20 s.'],
  ]) expect((await d.request('POST', '/knowledge', {body: {title, body, scope: 'global', tags: ['daemon']}})).status).toBe(201)
  // The server stays up between sessions (by default it exits with its last session, racing the next test).
  if (system.available) await tmux('start-server', ';', 'set-option', '-g', 'exit-empty', 'off')
})

afterAll(async () => {
  if (socket && system.available) await exec('tmux', ['-S', socket, 'kill-server']).catch(() => undefined)
  await d?.stop()
  if (user) await cleanup(user)
})

system.describe('kb browse in a real terminal (tmux)', () => {
  it('types a query, sees the entry, resolves it with r, leaves with q; the API confirms', async () => {
    session = 'resolve'
    const done = join(user.root, 'browse-exit')
    const cmd = `${process.execPath} ${KB_BIN} browse; echo $? > ${done}`
    await tmux('new-session', '-d', '-x', '100', '-y', '30', '-s', session, cmd)
    await waitForScreen('Search ›')
    await waitForScreen('3 entries')
    await tmux('send-keys', '-t', session, '-l', 'port in use')
    const found = await waitForScreen(/^› Port 7411 already in use/m)
    expect(found).toContain('Another kb daemon holds the port')
    expect(found).not.toContain('Flaky test on CI runners')
    await tmux('send-keys', '-t', session, 'Tab')
    await waitForScreen(/r resolve/)
    await tmux('send-keys', '-t', session, 'r')
    await waitForScreen('note (optional)')
    await tmux('send-keys', '-t', session, '-l', 'stopped the stale daemon')
    await tmux('send-keys', '-t', session, 'Enter')
    await waitForScreen('Resolved "Port 7411 already in use"')
    // The view refreshes: the row now says resolved.
    const resolved = await waitForScreen(/^› Port 7411 already in use\s+#daemon\s+resolved/m)
    // Every line fits the 100 columns and the screen the 30 rows.
    for (const l of resolved.split('\n')) expect(l.length).toBeLessThanOrEqual(100)
    await tmux('send-keys', '-t', session, 'q')
    await waitUntil(() => existsSync(done) && readFileSync(done, 'utf8').trim() !== '', 'kb browse should exit after q')
    expect(readFileSync(done, 'utf8').trim()).toBe('0')

    const hits = await d.request('GET', '/search', {query: {q: 'port in use', detail: 'full'}})
    const entry = hits.body.items.find((e: any) => e.title === 'Port 7411 already in use')
    expect(entry.status).toBe('resolved')
    expect(entry.resolution.note).toBe('stopped the stale daemon')
  })

  it('follows a resize to a narrow terminal and honours NO_COLOR', async () => {
    session = 'resize'
    const done = join(user.root, 'browse-exit-2')
    const cmd = `NO_COLOR=1 ${process.execPath} ${KB_BIN} browse sqlite; echo $? > ${done}`
    await tmux('new-session', '-d', '-x', '140', '-y', '30', '-s', session, cmd)
    // Wide: the detail pane is beside the list.
    await waitForScreen(/^› SQLite database is locked.*│ SQLite database is locked/m)
    await tmux('resize-window', '-t', session, '-x', '80', '-y', '24')
    // Narrow: below the list, under a rule.
    const narrow = await waitForScreen(/^─+\nSQLite database is locked$/m)
    for (const l of narrow.split('\n')) expect(l.length).toBeLessThanOrEqual(80)
    const colored = await tmux('capture-pane', '-p', '-e', '-t', session)
    // No foreground/background colours (SGR 30–38, 40–48, 90–97, 100–107; 39 and 49 are resets to the
    // default); bold and inverse are not colours.
    const sgr = [...colored.matchAll(/\u001B\[([0-9;]*)m/g)].flatMap((m) => m[1]!.split(';').map(Number))
    expect(sgr.filter((n) => (n >= 30 && n <= 38) || (n >= 40 && n <= 48) || (n >= 90 && n <= 97) || (n >= 100 && n <= 107))).toEqual([])
    expect(colored).toContain('\u001B[7m')
    await tmux('send-keys', '-t', session, 'Escape')
    await waitUntil(() => existsSync(done) && readFileSync(done, 'utf8').trim() !== '', 'kb browse should exit after Esc')
    expect(readFileSync(done, 'utf8').trim()).toBe('0')
  })
})

describe('kb browse without a terminal', () => {
  it('exits 2 and suggests kb search', async () => {
    const r = await kb(user, ['browse'], {env: {KB_BASE_URL: d.url, KB_API_KEY: d.ownerKey}})
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('kb search')
    expect(r.stdout).toBe('')
  })
})
