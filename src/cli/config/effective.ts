/**
 * @module The value a setting has right now and where it came from (environment, config file, default),
 * for `kb config get|list` (docs/cli.md, "Configuration").
 */
import {DETAIL_DEFAULT, LIMIT_DEFAULT, RECALL_TOKENS_DEFAULT} from '../../shared/contract.js'
import {DEFAULT_BASE_URL} from '../../shared/paths.js'
import {CONFIG_KEYS, readConfig, storedValue} from './config.js'

export interface Setting {
  key: string
  value: string | number | boolean | null
  source: 'env' | 'config' | 'default'
  env: string | null
}

/** Variables that stand in for a key unset in the config file, in the order the CLI reads them. */
const FALLBACK_ENV: Record<string, string[]> = {editor: ['VISUAL', 'EDITOR']}

/**
 * What each command uses when the key is unset. A default that differs by command is named per command
 * (`20 (kb list), 10 (kb search)`), so `kb config get` never prints an empty line.
 */
const DEFAULTS: Record<string, string | number | boolean> = {
  base_url: DEFAULT_BASE_URL,
  default_detail: `${DETAIL_DEFAULT.entry} (kb show), ${DETAIL_DEFAULT.search} (kb search)`,
  default_limit: `${LIMIT_DEFAULT.entries} (kb list), ${LIMIT_DEFAULT.search} (kb search)`,
  editor: 'vi',
  queue_writes: true,
  'recall.max_tokens': RECALL_TOKENS_DEFAULT,
}

export function effectiveSetting(key: string, env: NodeJS.ProcessEnv = process.env): Setting {
  const def = CONFIG_KEYS[key]!
  const envName = def.env ?? null
  if (envName && env[envName]) return {key, value: env[envName]!, source: 'env', env: envName}
  if (key === 'queue_writes' && noQueueEnv(env.KB_NO_QUEUE)) return {key, value: false, source: 'env', env: 'KB_NO_QUEUE'}
  const stored = storedValue(readConfig(env), key)
  if (stored !== undefined && stored !== null) return {key, value: stored as string | number | boolean, source: 'config', env: envName}
  const fallback = (FALLBACK_ENV[key] ?? []).find((name) => env[name])
  if (fallback) return {key, value: env[fallback]!, source: 'env', env: fallback}
  return {key, value: DEFAULTS[key] ?? null, source: 'default', env: envName}
}

/** KB_NO_QUEUE as the outbox reads it (outbox/state.ts queueEnabled): set and not 0/false. */
function noQueueEnv(v: string | undefined): boolean {
  return v !== undefined && v !== '' && v !== '0' && v.toLowerCase() !== 'false'
}
