/**
 * @module Which credential the CLI sends. Order: KB_API_KEY, then the credential stored for the base URL
 * (OS keychain, or the 0600 file when no keychain answered at login), then — for a local base URL —
 * `<data dir>/owner.key`. `credentials.json` (0600, in the config dir) records where each base URL's
 * credential lives, so commands never wait on the keychain when nothing is stored there. A stored
 * credential is an API key (`kb auth login --with-token`) or OAuth tokens (`kb auth login --web`); in the
 * keychain the OAuth tokens are one JSON string, which an API key can never look like. Credentials of the
 * local data directory carry `daemonDataDir`: they go only to a daemon that proves it owns it (base.ts).
 * Every stored credential of a loopback base URL is one (docs/security.md): one stored without a data
 * directory (by an older kb) is taken to be the current one's.
 */
import {chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {KbError} from '../../shared/errors.js'
import {dataDir, dataFiles} from '../../shared/paths.js'
import {configDir} from '../config/config.js'
import {isLoopbackUrl} from '../daemon/manager.js'
import {keychainCall} from './keychain.js'

export type CredentialSource = 'env' | 'keychain' | 'file' | 'owner-key' | 'none'
export type CredentialKind = 'api-key' | 'oauth'

/** What `kb auth login --web` stores: the tokens plus what refreshing and revoking them needs, so neither has to discover the server again. */
export interface OAuthCredential {
  access_token: string
  refresh_token: string | null
  /** When the access token expires (ISO 8601), or null when the server did not say. */
  expires_at: string | null
  client_id: string
  issuer: string
  token_endpoint: string
  revocation_endpoint: string | null
  /** The RFC 8707 resource the tokens were issued for (the base URL). */
  resource: string
  obtained_at: string
}

export interface ResolvedCredential {
  /** What goes into `Authorization: Bearer` (the API key, or the OAuth access token). */
  key: string | null
  source: CredentialSource
  kind: CredentialKind | null
  /** The file, the keychain item or the variable it came from, for `kb auth status`. */
  location: string | null
  /** Set for an OAuth credential. */
  oauth?: OAuthCredential
  /** Set when a stored credential could not be read (e.g. the keychain did not answer). */
  problem?: string
  /**
   * Set when the credential may only go to the daemon of this data directory, once it has proved it owns
   * it (src/cli/daemon/proof.ts): owner.key, and what `kb auth login` stored from such a daemon.
   */
  daemonDataDir?: string
}

/**
 * `data_dir`: the data directory whose daemon proved itself at login (see `daemonDataDir`); `url_only`: a key of a
 * loopback server that is not a daemon of this machine's data directory (a team server on loopback, a tunnel),
 * which goes wherever its URL points, as a remote server's does (docs/security.md).
 */
type StoredEntry = (
  {store: 'keychain'; kind?: CredentialKind} | {store: 'file'; key: string} | {store: 'file'; kind: 'oauth'; oauth: OAuthCredential}
) & {data_dir?: string; url_only?: true}

/** `boundTo` of a credential bound to its URL alone (`url_only`), though the URL is loopback. */
export const URL_ONLY = {urlOnly: true} as const
/** Where a stored credential may go: the daemon of a data directory, its URL alone (`URL_ONLY`), or (null) a remote server. */
export type CredentialBinding = string | typeof URL_ONLY | null
interface CredentialFile {
  version: 1
  credentials: Record<string, StoredEntry>
}

function credentialFilePath(env: NodeJS.ProcessEnv = process.env): string {
  return join(configDir(env), 'credentials.json')
}

function readFile(env: NodeJS.ProcessEnv): CredentialFile {
  const path = credentialFilePath(env)
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch {
    return {version: 1, credentials: {}}
  }
  try {
    const parsed = JSON.parse(text) as CredentialFile
    if (typeof parsed?.credentials !== 'object' || parsed.credentials === null) throw new Error('no credentials object')
    return parsed
  } catch {
    throw new KbError('usage', `${path} is not valid; delete it and run \`kb auth login --with-token\` again`)
  }
}

function writeFile(file: CredentialFile, env: NodeJS.ProcessEnv): void {
  const path = credentialFilePath(env)
  mkdirSync(configDir(env), {recursive: true, mode: 0o700})
  const tmp = `${path}.${process.pid}.tmp`
  writeFileSync(tmp, `${JSON.stringify(file, null, 2)}\n`, {mode: 0o600})
  chmodSync(tmp, 0o600)
  renameSync(tmp, path)
}

function keychainLocation(baseUrl: string): string {
  return `keychain service "kb", account "${baseUrl}"`
}

/** A keychain value: OAuth tokens as JSON, anything else an API key. */
function fromKeychainValue(value: string, baseUrl: string): ResolvedCredential {
  if (value.startsWith('{')) {
    try {
      const oauth = JSON.parse(value) as OAuthCredential
      if (typeof oauth.access_token === 'string')
        return {key: oauth.access_token, source: 'keychain', kind: 'oauth', location: keychainLocation(baseUrl), oauth}
    } catch {
      // not JSON after all: treat it like any other key and let the server judge it
    }
  }
  return {key: value, source: 'keychain', kind: 'api-key', location: keychainLocation(baseUrl)}
}

function bound(c: ResolvedCredential, stored: StoredEntry, baseUrl: string, env: NodeJS.ProcessEnv): ResolvedCredential {
  if (stored.url_only) return c
  const dir = stored.data_dir ?? (isLoopbackUrl(baseUrl) ? dataDir(env) : undefined)
  return dir ? {...c, daemonDataDir: dir} : c
}

/** The credential stored for a base URL by `kb auth login`, ignoring KB_API_KEY and owner.key; null when none. */
export async function readStoredCredential(
  baseUrl: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<ResolvedCredential | {problem: string} | null> {
  const stored = readFile(env).credentials[baseUrl]
  if (!stored) return null
  if (stored.store === 'file') {
    if ('oauth' in stored)
      return bound(
        {key: stored.oauth.access_token, source: 'file', kind: 'oauth', location: credentialFilePath(env), oauth: stored.oauth},
        stored,
        baseUrl,
        env,
      )
    return bound({key: stored.key, source: 'file', kind: 'api-key', location: credentialFilePath(env)}, stored, baseUrl, env)
  }
  const r = await keychainCall('get', baseUrl)
  if (r.ok && typeof r.value === 'string' && r.value !== '') return bound(fromKeychainValue(r.value, baseUrl), stored, baseUrl, env)
  return {problem: r.ok ? 'the keychain no longer holds the stored credential' : `the keychain did not answer: ${r.reason}`}
}

export function readOwnerKey(path: string): string | null {
  try {
    return readFileSync(path, 'utf8').trim() || null
  } catch {
    return null // no daemon has initialised this data directory yet
  }
}

/**
 * The credential to send. A key given in KB_API_KEY goes where the base URL points — unless it is the
 * local owner key, which, like owner.key itself, only goes to the daemon that proves it owns the data directory.
 */
export async function resolveCredential(
  baseUrl: string,
  local: boolean,
  env: NodeJS.ProcessEnv = process.env,
): Promise<ResolvedCredential> {
  const dir = dataDir(env)
  const ownerKeyPath = dataFiles(dir).ownerKey
  if (env.KB_API_KEY) {
    const key = env.KB_API_KEY.trim()
    return {
      key,
      source: 'env',
      kind: 'api-key',
      location: 'KB_API_KEY',
      ...(local && key === readOwnerKey(ownerKeyPath) ? {daemonDataDir: dir} : {}),
    }
  }
  const stored = await readStoredCredential(baseUrl, env)
  if (stored && 'source' in stored) return stored
  const problem = stored?.problem
  const ownerKey = local ? readOwnerKey(ownerKeyPath) : null
  if (ownerKey)
    return {key: ownerKey, source: 'owner-key', kind: 'api-key', location: ownerKeyPath, daemonDataDir: dir, ...(problem ? {problem} : {})}
  return {key: null, source: 'none', kind: null, location: null, ...(problem ? {problem} : {})}
}

export interface StoreOutcome {
  store: 'keychain' | 'file'
  location: string
  keychainProblem?: string
}

/**
 * Writes a secret to the keychain when one answers (and reads it back), else into the 0600 file.
 * `boundTo`: the data directory whose daemon the credential may only go to (`daemonDataDir`).
 */
async function storeSecret(
  baseUrl: string,
  secret: string,
  kind: CredentialKind,
  fileEntry: StoredEntry,
  env: NodeJS.ProcessEnv,
  tryKeychain: boolean,
  boundTo: CredentialBinding,
): Promise<StoreOutcome> {
  const file = readFile(env)
  const binding = typeof boundTo === 'string' ? {data_dir: boundTo} : boundTo ? {url_only: true as const} : {}
  let reason = 'not tried: the credential was stored in the file before'
  if (tryKeychain) {
    const r = await keychainCall('set', baseUrl, secret)
    reason = r.ok ? 'the keychain accepted the credential but did not return it' : r.reason
    if (r.ok) {
      // Confirm it reads back: some stores accept a write they cannot serve later (e.g. a locked collection).
      const check = await keychainCall('get', baseUrl)
      if (check.ok && check.value === secret) {
        file.credentials[baseUrl] = {...(kind === 'oauth' ? {store: 'keychain', kind} : {store: 'keychain'}), ...binding}
        writeFile(file, env)
        return {store: 'keychain', location: keychainLocation(baseUrl)}
      }
    }
  } else if (file.credentials[baseUrl]?.store === 'keychain') {
    await keychainCall('delete', baseUrl)
  }
  file.credentials[baseUrl] = {...fileEntry, ...binding}
  writeFile(file, env)
  return {store: 'file', location: credentialFilePath(env), keychainProblem: reason}
}

/** Stores a key for a base URL: in the keychain when one answers, else in the 0600 file. */
export async function storeCredential(
  baseUrl: string,
  key: string,
  boundTo: CredentialBinding,
  env: NodeJS.ProcessEnv = process.env,
): Promise<StoreOutcome> {
  return storeSecret(baseUrl, key, 'api-key', {store: 'file', key}, env, true, boundTo)
}

/**
 * Stores OAuth tokens for a base URL. `sameStoreAs` (on refresh) keeps them where the previous tokens
 * were, so a refresh never waits on a keychain that was not used at login.
 */
export async function storeOAuthCredential(
  baseUrl: string,
  oauth: OAuthCredential,
  boundTo: CredentialBinding,
  sameStoreAs: 'keychain' | 'file' | null = null,
  env: NodeJS.ProcessEnv = process.env,
): Promise<StoreOutcome> {
  return storeSecret(baseUrl, JSON.stringify(oauth), 'oauth', {store: 'file', kind: 'oauth', oauth}, env, sameStoreAs !== 'file', boundTo)
}

/** Forgets the stored credential of a base URL (keychain item and file entry). */
export async function removeCredential(
  baseUrl: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{removed: boolean; store: 'keychain' | 'file' | null}> {
  const file = readFile(env)
  const stored = file.credentials[baseUrl]
  if (!stored) return {removed: false, store: null}
  if (stored.store === 'keychain') await keychainCall('delete', baseUrl)
  delete file.credentials[baseUrl]
  writeFile(file, env)
  return {removed: true, store: stored.store}
}

/** Where a base URL's credential is stored, without reading the secret. */
export function storedLocation(baseUrl: string, env: NodeJS.ProcessEnv = process.env): 'keychain' | 'file' | null {
  return readFile(env).credentials[baseUrl]?.store ?? null
}

/** Whether an OAuth access token is expired or about to be (within `skewMs`): refresh before sending it. */
export function oauthExpired(c: OAuthCredential, now: number = Date.now(), skewMs = 30_000): boolean {
  if (!c.expires_at) return false
  const t = Date.parse(c.expires_at)
  return !Number.isFinite(t) || t - skewMs <= now
}
