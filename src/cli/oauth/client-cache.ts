/**
 * @module The OAuth clients `kb auth login --web` registered, one per base URL, in
 * `$XDG_CONFIG_HOME/kb/oauth-clients.json` (0600). A public client has no secret, but the file is kept
 * private anyway: it says which servers this user signs in to.
 */
import {chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {configDir} from '../config/config.js'

export interface CachedClient {
  client_id: string
  /** The issuer it was registered with: a different issuer at the same base URL means a different server. */
  issuer: string
  registered_at: string
}

interface ClientFile {
  version: 1
  clients: Record<string, CachedClient>
}

function clientCachePath(env: NodeJS.ProcessEnv = process.env): string {
  return join(configDir(env), 'oauth-clients.json')
}

function readCache(env: NodeJS.ProcessEnv): ClientFile {
  try {
    const parsed = JSON.parse(readFileSync(clientCachePath(env), 'utf8')) as ClientFile
    if (typeof parsed?.clients === 'object' && parsed.clients !== null) return parsed
  } catch {
    // missing or damaged: it is only a cache, so start afresh and register again
  }
  return {version: 1, clients: {}}
}

/** The client registered for this base URL with this issuer, if any. */
export function cachedClient(baseUrl: string, issuer: string, env: NodeJS.ProcessEnv = process.env): CachedClient | null {
  const c = readCache(env).clients[baseUrl]
  return c && c.issuer === issuer && typeof c.client_id === 'string' ? c : null
}

export function saveClient(baseUrl: string, client: CachedClient, env: NodeJS.ProcessEnv = process.env): void {
  const file = readCache(env)
  file.clients[baseUrl] = client
  const path = clientCachePath(env)
  mkdirSync(configDir(env), {recursive: true, mode: 0o700})
  const tmp = `${path}.${process.pid}.tmp`
  writeFileSync(tmp, `${JSON.stringify(file, null, 2)}\n`, {mode: 0o600})
  chmodSync(tmp, 0o600)
  renameSync(tmp, path)
}
