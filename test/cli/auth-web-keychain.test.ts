/**
 * `kb auth login --web` with a real Secret Service (gnome-keyring in a private D-Bus session): the OAuth
 * tokens go to the keychain as one item, never into our files; a refresh rewrites that item; logout
 * revokes and deletes it. The browser step is played by chromium, as in auth-web.test.ts.
 */
import {existsSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import type {Browser} from 'playwright-core'
import {afterAll, beforeAll, expect, it} from 'vitest'
import {KB_BIN, ROOT, newPrincipal, type ChildDaemon} from '../helpers/daemon.js'
import {consent, startAuthWebFixture, type AuthWebFixture} from './auth-web-support.js'
import {run, type KbEnv} from './helpers.js'
import {requireSystem} from '../helpers/system.js'

let d: ChildDaemon
let browser: Browser
let user: KbEnv

let fixture: AuthWebFixture | undefined

beforeAll(async () => {
  fixture = await startAuthWebFixture('kb-auth-web-kc-daemon-', {})
  ;({d, browser, user} = fixture)
}, 60_000)

afterAll(async () => {
  await fixture?.stop()
})

async function waitForFile(path: string, pattern: RegExp, timeoutMs = 30_000): Promise<RegExpExecArray> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const m = existsSync(path) ? pattern.exec(readFileSync(path, 'utf8')) : null
    if (m) return m
    if (Date.now() > deadline)
      throw new Error(`${path} never matched ${pattern}:\n${existsSync(path) ? readFileSync(path, 'utf8') : '(missing)'}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

requireSystem('chromium', 'secret-service').describe('kb auth login --web with a real Secret Service', () => {
  it('keeps the tokens in the keychain, refreshes them there, and logout revokes and deletes them', async () => {
    const bob = await newPrincipal(d, 'bob')
    const out = user.root
    const kbCmd = `"${process.execPath}" "${KB_BIN}"`
    // Reads or rewrites the keychain item from inside the same D-Bus session.
    const keyring = (js: string): string =>
      `"${process.execPath}" -e 'const {Entry} = require("${ROOT}/node_modules/@napi-rs/keyring"); const e = new Entry("kb", process.env.KB_BASE_URL); ${js}'`
    const script = join(out, 'session.sh')
    writeFileSync(
      script,
      `set -e
echo kb-test-password | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1
KB_DATA_DIR="${d.dataDir}" ${kbCmd} auth login --web --no-browser --json > "$OUT/login.json" 2> "$OUT/login.err"
${kbCmd} auth status --json > "$OUT/status.json"
${keyring('process.stdout.write(e.getPassword())')} > "$OUT/first.json"
${keyring('const c = JSON.parse(e.getPassword()); c.expires_at = "2000-01-01T00:00:00.000Z"; e.setPassword(JSON.stringify(c))')}
${kbCmd} add "Via an OAuth sign-in in the keychain" --body x --json > "$OUT/add.json"
${keyring('process.stdout.write(e.getPassword())')} > "$OUT/refreshed.json"
cp "$XDG_CONFIG_HOME/kb/credentials.json" "$OUT/credentials.json"
${kbCmd} auth logout --json > "$OUT/logout.json"
${keyring('process.stdout.write(String(e.getPassword() ?? "gone"))')} > "$OUT/after.txt" 2>&1 || echo gone > "$OUT/after.txt"
`,
    )
    const session = run('dbus-run-session', ['--', 'sh', script], user, {env: {OUT: out}, timeoutMs: 60_000})
    const url = (await waitForFile(join(out, 'login.err'), /^\s+(http:\/\/\S+\/oauth\/authorize\?\S+)$/m))[1]!
    expect((await consent(browser, url, bob, 'approve')).title).toBe('Signed in to kb')
    const r = await session
    expect(r.code, `${r.stderr}\n${existsSync(join(out, 'login.err')) ? readFileSync(join(out, 'login.err'), 'utf8') : ''}`).toBe(0)

    const read = (f: string): any => JSON.parse(readFileSync(join(out, f), 'utf8'))
    expect(read('login.json')).toMatchObject({kind: 'oauth', store: 'keychain', principal: {name: 'bob'}})
    expect(read('status.json')).toMatchObject({
      source: 'keychain',
      kind: 'oauth',
      stored_in: 'keychain',
      authenticated: true,
      principal: {name: 'bob'},
    })
    const first = read('first.json')
    expect(first.access_token).toMatch(/^kbat_/)
    expect(first.refresh_token).toMatch(/^kbrt_/)
    // Our file (as it was after the refresh) only says where the credential is; no token in it.
    const credText = readFileSync(join(out, 'credentials.json'), 'utf8')
    expect(JSON.parse(credText).credentials[d.url]).toEqual({store: 'keychain', kind: 'oauth', data_dir: d.dataDir})

    expect(read('add.json').author.name).toBe('bob')
    const refreshed = read('refreshed.json')
    expect(refreshed.access_token).not.toBe(first.access_token)
    expect(refreshed.refresh_token).not.toBe(first.refresh_token)
    expect(Date.parse(refreshed.expires_at)).toBeGreaterThan(Date.now() + 3500_000)
    for (const t of [first.access_token, first.refresh_token, refreshed.access_token, refreshed.refresh_token])
      expect(credText).not.toContain(t)

    expect(read('logout.json')).toEqual({base_url: d.url, removed: true, store: 'keychain', kind: 'oauth', revoked: true})
    expect(readFileSync(join(out, 'after.txt'), 'utf8')).toContain('gone')
    expect((await d.request('GET', '/knowledge', {key: refreshed.access_token})).status).toBe(401)
  })
})
