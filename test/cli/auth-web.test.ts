/**
 * `kb auth login --web` end to end: the built `kb` binary (its own HOME and XDG dirs) against a real child
 * daemon, the browser step played by Debian's chromium through playwright-core. Sign-in with the printed
 * URL, the tokens used by `kb add`/`kb search`, refresh on local expiry, by concurrent processes and on a
 * 401 from the server, logout revoking at the server, a refresh the server refuses. The deny and timeout
 * paths are in auth-web-failures.test.ts, the keychain in auth-web-keychain.test.ts.
 */
import {existsSync, readFileSync, statSync, writeFileSync, rmSync} from 'node:fs'
import {join} from 'node:path'
import type {Browser} from 'playwright-core'
import {afterAll, beforeAll, expect, it} from 'vitest'
import {KB_BIN, newPrincipal, type ChildDaemon} from '../helpers/daemon.js'
import {openDb, sha256Hex, tokenRequest} from '../server/oauth/support.js'
import {consent, startLogin, startAuthWebFixture, type AuthWebFixture} from './auth-web-support.js'
import {kb, run, type KbEnv, type RunResult} from './helpers.js'
import {requireSystem} from '../helpers/system.js'

const system = requireSystem('chromium')

const RECORDER = join(import.meta.dirname, 'fixtures', 'record-modules.mjs')

let d: ChildDaemon
let browser: Browser
let user: KbEnv
let aliceKey: string

interface OAuthStored {
  access_token: string
  refresh_token: string
  expires_at: string
  client_id: string
  issuer: string
  token_endpoint: string
  revocation_endpoint: string
  resource: string
}

let fixture: AuthWebFixture | undefined

beforeAll(async () => {
  fixture = await startAuthWebFixture('kb-auth-web-daemon-', {KB_KEYCHAIN_TIMEOUT_MS: '1000'})
  ;({d, browser, user} = fixture)
  aliceKey = await newPrincipal(d, 'alice')
}, 60_000)

afterAll(async () => {
  await fixture?.stop()
})

const credFile = (): string => join(user.env.XDG_CONFIG_HOME!, 'kb', 'credentials.json')
const clientFile = (): string => join(user.env.XDG_CONFIG_HOME!, 'kb', 'oauth-clients.json')
const readJson = (path: string): any => JSON.parse(readFileSync(path, 'utf8'))
const stored = (): OAuthStored => readJson(credFile()).credentials[d.url].oauth as OAuthStored

function editStored(change: (o: OAuthStored) => void): void {
  const file = readJson(credFile())
  change(file.credentials[d.url].oauth)
  writeFileSync(credFile(), JSON.stringify(file))
}

async function ok(args: string[]): Promise<RunResult> {
  const r = await kb(user, args)
  expect(r.code, `kb ${args.join(' ')}\n${r.stderr}`).toBe(0)
  return r
}

async function apiStatus(token: string): Promise<{status: number; challenge: string | null}> {
  const r = await d.request('GET', '/knowledge', {key: token})
  return {status: r.status, challenge: r.headers.get('www-authenticate')}
}

const OAUTH_MODULES = /\/node_modules\/oauth4webapi\/|\/dist\/src\/oauth\//

/** Runs kb with the module recorder of the start-up guard test; returns every module it loaded, one a line. */
async function recordModules(args: string[]): Promise<{code: number | null; stdout: string; modules: string}> {
  const file = join(user.root, 'modules.txt')
  const r = await run(process.execPath, ['--import', RECORDER, KB_BIN, ...args], user, {env: {KB_RECORD_MODULES: file}})
  expect(r.code, r.stderr).toBe(0)
  const modules = readFileSync(file, 'utf8')
  rmSync(file)
  return {code: r.code, stdout: r.stdout, modules}
}

let firstTokens: OAuthStored
let beforeLogout: string

system.describe('kb auth login --web', () => {
  it('signs in through the consent page, stores the tokens (0600), and every command uses them', async () => {
    const login = startLogin(user, d.dataDir)
    const page = await consent(browser, await login.url, aliceKey, 'approve')
    expect(page.title).toBe('Signed in to kb')
    expect(page.body).toContain('You can close this tab')
    const r = await login.done
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toContain('Open this URL in a browser')
    const result = JSON.parse(r.stdout)
    expect(result).toMatchObject({base_url: d.url, kind: 'oauth', store: 'file', location: credFile(), principal: {name: 'alice'}})
    expect(result.key_prefix).toMatch(/^kbat_/)
    expect(Date.parse(result.expires_at) - Date.now()).toBeGreaterThan(3500_000)

    // The tokens and the registered client sit in private files; the client is cached per base URL.
    expect(statSync(credFile()).mode & 0o777).toBe(0o600)
    expect(statSync(clientFile()).mode & 0o777).toBe(0o600)
    expect(readJson(clientFile()).clients[d.url]).toMatchObject({client_id: result.client_id, issuer: d.url})
    firstTokens = stored()
    expect(firstTokens).toMatchObject({
      client_id: result.client_id,
      issuer: d.url,
      resource: d.url,
      token_endpoint: `${d.url}/oauth/token`,
      revocation_endpoint: `${d.url}/oauth/revoke`,
    })
    expect(firstTokens.refresh_token).toMatch(/^kbrt_/)
    expect((await apiStatus(firstTokens.access_token)).status).toBe(200)

    const status = JSON.parse((await ok(['auth', 'status', '--json'])).stdout)
    expect(status).toMatchObject({
      source: 'file',
      kind: 'oauth',
      stored_in: 'file',
      authenticated: true,
      principal: {name: 'alice'},
      expires_at: firstTokens.expires_at,
    })

    // The entry is alice's: the OAuth token was sent, not some other key.
    const added = JSON.parse(
      (await ok(['add', 'Loopback redirect port already taken', '--body', 'kb picks a free port for the OAuth redirect', '--json'])).stdout,
    )
    expect(added.author.name).toBe('alice')
    const id = added.id as string
    expect((await ok(['search', 'loopback', 'redirect'])).stdout.split('\t')[0]).toBe(id)
  })

  it('loads neither oauth4webapi nor the OAuth flow for a command whose token is still valid', async () => {
    const {code, modules} = await recordModules(['search', 'loopback'])
    expect(code).toBe(0)
    expect(modules).toContain('/dist/commands/search.js')
    expect(modules).not.toMatch(OAUTH_MODULES)
  })

  it('refreshes an access token that expired locally, and stores the rotated refresh token', async () => {
    editStored((o) => (o.expires_at = new Date(Date.now() - 60_000).toISOString()))
    // Recorded too: the positive control of the test above (the refresh does load oauth4webapi).
    const {code, modules, stdout} = await recordModules(['search', 'loopback', '--json'])
    expect(code).toBe(0)
    expect(modules).toMatch(OAUTH_MODULES)
    expect(JSON.parse(stdout).total).toBe(1)
    const now = stored()
    expect(now.access_token).not.toBe(firstTokens.access_token)
    expect(now.refresh_token).not.toBe(firstTokens.refresh_token)
    expect(Date.parse(now.expires_at)).toBeGreaterThan(Date.now() + 3500_000)
    expect((await apiStatus(now.access_token)).status).toBe(200)
  })

  it('kb processes refreshing at the same time take turns: the rotated refresh token is never replayed', async () => {
    // Without the lock the second process would present the refresh token the first just rotated, and the
    // server would revoke the whole sign-in (and that process would exit 4).
    const old = stored()
    editStored((o) => (o.expires_at = new Date(Date.now() - 60_000).toISOString()))
    const runs = await Promise.all([kb(user, ['list']), kb(user, ['search', 'loopback']), kb(user, ['auth', 'status'])])
    for (const r of runs) expect(r.code, r.stderr).toBe(0)
    const now = stored()
    expect(now.refresh_token).not.toBe(old.refresh_token)
    expect((await apiStatus(now.access_token)).status).toBe(200)
    expect(existsSync(join(user.env.XDG_CONFIG_HOME!, 'kb', 'oauth-refresh.lock'))).toBe(false)
  })

  it('refreshes once when the server refuses a token kb still thinks valid (401 invalid_token)', async () => {
    const old = stored()
    const db = openDb(d)
    try {
      db.prepare('UPDATE oauth_tokens SET expires_at = ? WHERE hash = ?').run(
        new Date(Date.now() - 1000).toISOString(),
        sha256Hex(old.access_token),
      )
    } finally {
      db.close()
    }
    expect(await apiStatus(old.access_token)).toMatchObject({status: 401, challenge: expect.stringContaining('invalid_token')})
    const r = await ok(['list', '--json'])
    expect(JSON.parse(r.stdout).items.length).toBe(1)
    const now = stored()
    expect(now.access_token).not.toBe(old.access_token)
    expect(now.refresh_token).not.toBe(old.refresh_token)
    const status = JSON.parse((await ok(['auth', 'status', '--json'])).stdout)
    expect(status).toMatchObject({
      kind: 'oauth',
      authenticated: true,
      principal: {name: 'alice'},
      key_prefix: now.access_token.slice(0, 11),
    })
  })

  it('logout revokes both tokens at the server, then forgets them', async () => {
    const tokens = stored()
    beforeLogout = readFileSync(credFile(), 'utf8')
    const r = await ok(['auth', 'logout', '--json'])
    expect(JSON.parse(r.stdout)).toEqual({base_url: d.url, removed: true, store: 'file', kind: 'oauth', revoked: true})
    expect(readJson(credFile()).credentials[d.url]).toBeUndefined()
    expect(await apiStatus(tokens.access_token)).toMatchObject({status: 401, challenge: expect.stringContaining('invalid_token')})
    const refresh = await tokenRequest(d, {grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: tokens.client_id})
    expect(refresh.status).toBe(400)
    expect(refresh.body.error).toBe('invalid_grant')
    const status = await kb(user, ['auth', 'status', '--json'])
    expect(status.code).toBe(4)
    expect(JSON.parse(status.stdout)).toMatchObject({source: 'none', authenticated: false})
  })

  it('a refresh the server refuses ends with exit 4 and says to log in again', async () => {
    // The revoked tokens put back, as if logout had happened elsewhere: first the server refuses the access
    // token, then the refresh token.
    writeFileSync(credFile(), beforeLogout)
    const r = await kb(user, ['search', 'loopback'])
    expect(r.code, r.stderr).toBe(4)
    expect(r.stderr).toMatch(
      /^kb: the OAuth sign-in for .* could not be refreshed \(invalid_grant: .*\); run `kb auth login --web` again\n$/,
    )
    // The same when kb sees the expiry itself; `kb auth status` reports it rather than failing.
    editStored((o) => (o.expires_at = new Date(Date.now() - 60_000).toISOString()))
    const status = await kb(user, ['auth', 'status', '--json'])
    expect(status.code).toBe(4)
    expect(JSON.parse(status.stdout)).toMatchObject({
      source: 'file',
      kind: 'oauth',
      authenticated: false,
      error: expect.stringMatching(/could not be refreshed \(invalid_grant: .*kb auth login --web/),
    })
    // Logout still works: revoking a revoked token is a success (RFC 7009).
    expect((await ok(['auth', 'logout'])).stdout).toBe('removed\tfile\trevoked\n')
  })
})
