/**
 * Credentials: `kb auth login --with-token` stores the key in a real Secret Service (gnome-keyring under
 * dbus-run-session), falls back to a 0600 file when no keychain answers (none at all, or a D-Bus that
 * hangs), KB_API_KEY wins, the local owner.key is the last resort, and `kb auth status` says which.
 */
import {statSync, readFileSync, writeFileSync, rmSync} from 'node:fs'
import {createServer, type Server} from 'node:net'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {newPrincipal, startChildDaemon, type ChildDaemon} from '../helpers/daemon.js'
import {cleanup, kb, makeUser, run, type KbEnv} from './helpers.js'
import {KB_BIN} from '../helpers/daemon.js'
import {requireSystem} from '../helpers/system.js'

let d: ChildDaemon
let carol: string
const users: KbEnv[] = []

beforeAll(async () => {
  const owner = makeUser()
  users.push(owner)
  d = await startChildDaemon({dataDir: owner.dataDir})
  carol = await newPrincipal(d, 'carol')
})

afterAll(async () => {
  await d?.stop()
  for (const u of users) await cleanup(u)
})

/** A user whose owner.key is the daemon's (local base URL) but whose config dir is their own. */
function userOf(extra: Record<string, string> = {}): KbEnv {
  const u = makeUser({KB_BASE_URL: d.url, KB_DATA_DIR: d.dataDir, ...extra})
  users.push(u)
  return u
}

describe('without a keychain', () => {
  it('stores the key in a 0600 file, uses it, and auth status says so', async () => {
    const u = userOf()
    const before = JSON.parse((await kb(u, ['auth', 'status', '--json'])).stdout)
    expect(before).toMatchObject({
      source: 'owner-key',
      location: join(d.dataDir, 'owner.key'),
      authenticated: true,
      principal: {name: 'owner'},
    })

    const login = await kb(u, ['auth', 'login', '--with-token'], {input: `${carol}\n`})
    expect(login.code, login.stderr).toBe(0)
    expect(login.stdout).toBe(`${d.url}\tfile\tcarol\n`)
    const file = join(u.env.XDG_CONFIG_HOME!, 'kb', 'credentials.json')
    expect(statSync(file).mode & 0o777).toBe(0o600)
    // bound to the data directory whose daemon proved itself at login (docs/security.md)
    expect(JSON.parse(readFileSync(file, 'utf8')).credentials[d.url]).toEqual({store: 'file', key: carol, data_dir: d.dataDir})

    const status = JSON.parse((await kb(u, ['auth', 'status', '--json'])).stdout)
    expect(status).toMatchObject({
      source: 'file',
      location: file,
      stored_in: 'file',
      authenticated: true,
      principal: {name: 'carol'},
      key_prefix: carol.slice(0, 11),
    })
    const added = JSON.parse((await kb(u, ['add', 'By carol', '--body', 'x', '--json'])).stdout)
    expect(added.author.name).toBe('carol')

    // KB_API_KEY wins over the stored key
    const env = JSON.parse((await kb(u, ['auth', 'status', '--json'], {env: {KB_API_KEY: d.ownerKey}})).stdout)
    expect(env).toMatchObject({source: 'env', location: 'KB_API_KEY', stored_in: 'file', principal: {name: 'owner'}})

    const logout = await kb(u, ['auth', 'logout'])
    expect(logout.stdout).toBe('removed\tfile\n')
    expect(JSON.parse(readFileSync(file, 'utf8')).credentials).toEqual({})
    const after = JSON.parse((await kb(u, ['auth', 'status', '--json'])).stdout)
    expect(after.source).toBe('owner-key')
  })

  it('rejects a key the server does not know, with exit 4, and stores nothing', async () => {
    const u = userOf()
    const r = await kb(u, ['auth', 'login', '--with-token'], {input: 'kb_nope\n'})
    expect(r.code, r.stderr).toBe(4)
    expect(r.stderr).toContain('/owner.key')
    const status = await kb(u, ['auth', 'status', '--json'], {env: {KB_DATA_DIR: join(u.root, 'empty')}})
    expect(status.code, status.stderr).toBe(4)
    expect(JSON.parse(status.stdout)).toMatchObject({source: 'none', authenticated: false, stored_in: null})
  })

  it('falls back to the file when the D-Bus session hangs, within the keychain timeout', async () => {
    const sock = join(users[0]!.root, 'hung-bus.sock')
    const server: Server = createServer((c) => c.on('data', () => undefined))
    await new Promise<void>((r) => server.listen(sock, r))
    try {
      const u = userOf({DBUS_SESSION_BUS_ADDRESS: `unix:path=${sock}`, KB_KEYCHAIN_TIMEOUT_MS: '1500'})
      const login = await kb(u, ['auth', 'login', '--with-token'], {input: carol})
      expect(login.code, login.stderr).toBe(0)
      expect(login.stdout).toBe(`${d.url}\tfile\tcarol\n`)
      const status = JSON.parse((await kb(u, ['auth', 'status', '--json'])).stdout)
      expect(status).toMatchObject({source: 'file', principal: {name: 'carol'}})
    } finally {
      server.close()
      rmSync(sock, {force: true})
    }
  })
})

requireSystem('secret-service').describe('with a real Secret Service (gnome-keyring over D-Bus)', () => {
  it('stores the key in the keychain, not in the file, and uses it', async () => {
    const u = userOf()
    const script = join(u.root, 'session.sh')
    const kbCmd = `"${process.execPath}" "${KB_BIN}"`
    writeFileSync(
      script,
      `set -e
echo kb-test-password | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1
printf '%s' "$CAROL" | ${kbCmd} auth login --with-token
${kbCmd} auth status --json > "$OUT/status.json"
${kbCmd} add "Via keychain" --body x --json > "$OUT/add.json"
${kbCmd} auth logout
${kbCmd} auth status --json > "$OUT/after.json" || true
`,
    )
    const r = await run('dbus-run-session', ['--', 'sh', script], u, {env: {CAROL: carol, OUT: u.root}, timeoutMs: 60_000})
    expect(r.stderr.split('\n').filter((l) => l.startsWith('kb:'))).toEqual([])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toContain(`${d.url}\tkeychain\tcarol\n`)
    expect(r.stdout).toContain('removed\tkeychain\n')
    const status = JSON.parse(readFileSync(join(u.root, 'status.json'), 'utf8'))
    expect(status).toMatchObject({source: 'keychain', stored_in: 'keychain', authenticated: true, principal: {name: 'carol'}})
    expect(JSON.parse(readFileSync(join(u.root, 'add.json'), 'utf8')).author.name).toBe('carol')
    const after = JSON.parse(readFileSync(join(u.root, 'after.json'), 'utf8'))
    expect(after).toMatchObject({source: 'owner-key', stored_in: null})
    // The secret itself never touched the disk in our files.
    const credFile = readFileSync(join(u.env.XDG_CONFIG_HOME!, 'kb', 'credentials.json'), 'utf8')
    expect(credFile).not.toContain(carol)
  })
})
