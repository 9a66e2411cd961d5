/**
 * @module The value a setting has right now and where it came from (environment, config file, default),
 * for `kb config get|list`.
 */
import {DEFAULT_BASE_URL} from '../../shared/paths.js'
import {CONFIG_KEYS, readConfig} from './config.js'

export interface Setting {
  key: string
  value: string | number | boolean | null
  source: 'env' | 'config' | 'default'
  env: string | null
}

export function effectiveSetting(key: string, env: NodeJS.ProcessEnv = process.env): Setting {
  const def = CONFIG_KEYS[key]!
  const envName = def.env ?? null
  if (envName && env[envName]) return {key, value: env[envName]!, source: 'env', env: envName}
  const stored = readConfig(env)[key]
  if (stored !== undefined && stored !== null) return {key, value: stored as string | number | boolean, source: 'config', env: envName}
  return {key, value: key === 'base_url' ? DEFAULT_BASE_URL : null, source: 'default', env: envName}
}
