/**
 * @module CLI settings. Reading is a plain JSON read of the file `conf` writes (≈1 ms), because `conf`
 * itself costs ≈95 ms to import and every command needs `base_url`; writing goes through `conf`
 * (atomic writes, the file's format). Environment variables win over the file.
 */
import {readFileSync} from 'node:fs'
import {homedir} from 'node:os'
import {join} from 'node:path'
import {KbError} from '../../shared/errors.js'
import {API_PATH, DEFAULT_BASE_URL} from '../../shared/paths.js'
import {DETAILS, LIMIT_MAX, RECALL_TOKENS_DEFAULT, RECALL_TOKENS_MAX, RECALL_TOKENS_MIN} from '../../shared/contract.js'

/** `$XDG_CONFIG_HOME/kb`, else `~/.config/kb`: config.json and the credential file live here. */
export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.XDG_CONFIG_HOME) return join(env.XDG_CONFIG_HOME, 'kb')
  return join(env.HOME || homedir(), '.config', 'kb')
}

const CONFIG_FILE = 'config.json'

export interface ConfigKey {
  description: string
  /** Returns the value to store, or throws a usage `KbError` naming what is allowed. */
  parse: (value: string) => string | number | boolean
  env?: string
}

export const CONFIG_KEYS: Record<string, ConfigKey> = {
  base_url: {
    description: `the kb server, ending in /api/v1 (default ${DEFAULT_BASE_URL})`,
    env: 'KB_BASE_URL',
    parse: (v) => normalizeBaseUrl(v),
  },
  default_detail: {
    description: 'detail level of `kb show` and `kb search` when --detail is not given (summary, standard, full)',
    parse: (v) => {
      if (!(DETAILS as readonly string[]).includes(v)) throw new KbError('usage', `default_detail must be one of ${DETAILS.join(', ')}`)
      return v
    },
  },
  default_limit: {
    description: `how many entries \`kb list\` and \`kb search\` return when --limit is not given (1–${LIMIT_MAX})`,
    parse: (v) => {
      const n = Number(v)
      if (!Number.isInteger(n) || n < 1 || n > LIMIT_MAX)
        throw new KbError('usage', `default_limit must be a whole number from 1 to ${LIMIT_MAX}`)
      return n
    },
  },
  editor: {
    description: 'the editor for `kb add`, `kb edit` and `kb comment` on a terminal (default $VISUAL, $EDITOR, vi)',
    parse: (v) => v,
  },
  'recall.max_tokens': {
    description: `the token budget of what \`kb recall --hook\` gives an agent per prompt (${RECALL_TOKENS_MIN}–${RECALL_TOKENS_MAX}, default ${RECALL_TOKENS_DEFAULT})`,
    env: 'KB_RECALL_MAX_TOKENS',
    parse: (v) => {
      const n = Number(v)
      if (!Number.isInteger(n) || n < RECALL_TOKENS_MIN || n > RECALL_TOKENS_MAX)
        throw new KbError('usage', `recall.max_tokens must be a whole number from ${RECALL_TOKENS_MIN} to ${RECALL_TOKENS_MAX}`)
      return n
    },
  },
  queue_writes: {
    description:
      'queue writes for `kb sync` when the server cannot be reached (true, default), or fail with exit 6 (false; also KB_NO_QUEUE=1 or --no-queue)',
    parse: (v) => {
      if (v !== 'true' && v !== 'false') throw new KbError('usage', 'queue_writes must be true or false')
      return v === 'true'
    },
  },
}

export function assertConfigKey(key: string): ConfigKey {
  const k = CONFIG_KEYS[key]
  if (!k) throw new KbError('usage', `unknown config key "${key}"; known keys: ${Object.keys(CONFIG_KEYS).join(', ')}`)
  return k
}

/** A stored value; a dotted key (`recall.max_tokens`) is stored nested, as `conf` writes it. */
export function storedValue(config: Record<string, unknown>, key: string): unknown {
  if (key in config) return config[key]
  let at: unknown = config
  for (const part of key.split('.')) at = typeof at === 'object' && at !== null ? (at as Record<string, unknown>)[part] : undefined
  return at
}

let cached: Record<string, unknown> | undefined
/** The stored settings (no defaults, no environment), `{}` when there is no file yet. */
export function readConfig(env: NodeJS.ProcessEnv = process.env): Record<string, unknown> {
  if (cached) return cached
  const path = join(configDir(env), CONFIG_FILE)
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch {
    return (cached = {})
  }
  try {
    const parsed = JSON.parse(text) as unknown
    cached = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {}
  } catch {
    throw new KbError('usage', `${path} is not valid JSON; fix it or delete it (\`kb config list\` shows the settings)`)
  }
  return cached
}

/** `conf` for writes, loaded only by `kb config set|unset` and friends. */
export async function openConfigStore(env: NodeJS.ProcessEnv = process.env): Promise<{
  get(k: string): unknown
  set(k: string, v: unknown): void
  delete(k: string): void
  store: Record<string, unknown>
  path: string
}> {
  const {default: Conf} = await import('conf')
  cached = undefined
  return new Conf<Record<string, unknown>>({projectName: 'kb', cwd: configDir(env), configName: 'config', projectSuffix: ''}) as never
}

/** Trims and checks a base URL: http(s), no query; a trailing slash is dropped. */
/**
 * A base URL as kb uses it: http(s), no query, no trailing slash, ending in /api/v1. A server's bare origin
 * (`http://127.0.0.1:7461`) gets the API's path added; any other path is refused with the reason, since requests
 * there would reach something that is not kb's API (docs/cli.md, "Global flags").
 */
function normalizeBaseUrl(value: string): string {
  let u: URL
  try {
    u = new URL(value.trim())
  } catch {
    throw new KbError('usage', `"${value}" is not a URL; a base URL looks like ${DEFAULT_BASE_URL}`)
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new KbError('usage', `base URL ${value} must start with http:// or https://`)
  if (u.search || u.hash) throw new KbError('usage', `base URL ${value} must not have a query or fragment`)
  const path = u.pathname.replace(/\/+$/, '')
  if (path === '') u.pathname = API_PATH
  else if (!path.endsWith(API_PATH)) {
    u.pathname = API_PATH.startsWith(path) ? API_PATH : `${path}${API_PATH}`
    throw new KbError(
      'usage',
      `base URL ${value} must end in ${API_PATH}, where kb's API is served; did you mean ${u.toString().replace(/\/+$/, '')}?`,
    )
  }
  return u.toString().replace(/\/+$/, '')
}

/** `--base-url`, else KB_BASE_URL, else config `base_url`, else the local default. */
export function resolveBaseUrl(
  flag: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): {url: string; source: 'flag' | 'env' | 'config' | 'default'} {
  if (flag) return {url: normalizeBaseUrl(flag), source: 'flag'}
  if (env.KB_BASE_URL) return {url: normalizeBaseUrl(env.KB_BASE_URL), source: 'env'}
  const configured = readConfig(env).base_url
  if (typeof configured === 'string' && configured !== '') return {url: normalizeBaseUrl(configured), source: 'config'}
  return {url: DEFAULT_BASE_URL, source: 'default'}
}
