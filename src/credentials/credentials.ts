/**
 * @module Which API key the CLI sends. Order: KB_API_KEY, then the credential stored for the base URL
 * (OS keychain, or the 0600 file when no keychain answered at login), then — for a local base URL —
 * `<data dir>/owner.key`. `credentials.json` (0600, in the config dir) records where each base URL's
 * credential lives, so commands never wait on the keychain when nothing is stored there.
 */
import {chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {KbError} from '../api/errors.js'
import {dataDir, dataFiles} from '../api/paths.js'
import {configDir} from '../config/config.js'
import {keychainCall} from './keychain.js'

export type CredentialSource = 'env' | 'keychain' | 'file' | 'owner-key' | 'none'

export interface ResolvedCredential {
  key: string | null
  source: CredentialSource
  /** The file, the keychain item or the variable it came from, for `kb auth status`. */
  location: string | null
  /** Set when a stored credential could not be read (e.g. the keychain did not answer). */
  problem?: string
}

type StoredEntry = {store: 'keychain'} | {store: 'file'; key: string}
interface CredentialFile {
  version: 1
  credentials: Record<string, StoredEntry>
}

export function credentialFilePath(env: NodeJS.ProcessEnv = process.env): string {
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

export async function resolveCredential(baseUrl: string, local: boolean, env: NodeJS.ProcessEnv = process.env): Promise<ResolvedCredential> {
  if (env.KB_API_KEY) return {key: env.KB_API_KEY.trim(), source: 'env', location: 'KB_API_KEY'}
  const stored = readFile(env).credentials[baseUrl]
  let problem: string | undefined
  if (stored?.store === 'file') return {key: stored.key, source: 'file', location: credentialFilePath(env)}
  if (stored?.store === 'keychain') {
    const r = await keychainCall('get', baseUrl)
    if (r.ok && typeof r.value === 'string' && r.value !== '') return {key: r.value, source: 'keychain', location: `keychain service "kb", account "${baseUrl}"`}
    problem = r.ok ? 'the keychain no longer holds the stored credential' : `the keychain did not answer: ${r.reason}`
  }
  if (local) {
    const path = dataFiles(dataDir(env)).ownerKey
    try {
      const key = readFileSync(path, 'utf8').trim()
      if (key !== '') return {key, source: 'owner-key', location: path, ...(problem ? {problem} : {})}
    } catch {
      // no daemon has initialised this data directory yet
    }
  }
  return {key: null, source: 'none', location: null, ...(problem ? {problem} : {})}
}

/** Stores a key for a base URL: in the keychain when one answers, else in the 0600 file. */
export async function storeCredential(baseUrl: string, key: string, env: NodeJS.ProcessEnv = process.env): Promise<{store: 'keychain' | 'file'; location: string; keychainProblem?: string}> {
  const file = readFile(env)
  const r = await keychainCall('set', baseUrl, key)
  if (r.ok) {
    // Confirm it reads back: some stores accept a write they cannot serve later (e.g. a locked collection).
    const check = await keychainCall('get', baseUrl)
    if (check.ok && check.value === key) {
      file.credentials[baseUrl] = {store: 'keychain'}
      writeFile(file, env)
      return {store: 'keychain', location: `keychain service "kb", account "${baseUrl}"`}
    }
  }
  file.credentials[baseUrl] = {store: 'file', key}
  writeFile(file, env)
  return {store: 'file', location: credentialFilePath(env), keychainProblem: r.ok ? 'the keychain accepted the key but did not return it' : r.reason}
}

/** Forgets the stored credential of a base URL (keychain item and file entry). */
export async function removeCredential(baseUrl: string, env: NodeJS.ProcessEnv = process.env): Promise<{removed: boolean; store: 'keychain' | 'file' | null}> {
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
