/**
 * @module Which store a daemon runs on: SQLite in its data directory, or the PostgreSQL database a store URL
 * names (a team server; `kb daemon run --store-url` or KB_STORE_URL). The PostgreSQL driver and node-postgres
 * are loaded only then.
 */
import type {Store} from './store.js'
import {openSqliteStore} from './sqlite.js'

export type StoreKind = 'sqlite' | 'postgres'

/** The kind of store a URL names; throws a message for the user when it names none kb knows. */
export function storeKindOf(url: string | undefined): StoreKind {
  if (url === undefined) return 'sqlite'
  let protocol: string
  try {
    protocol = new URL(url).protocol
  } catch {
    throw new Error('the store URL is not a URL; use postgres://user:password@host:5432/database')
  }
  if (protocol === 'postgres:' || protocol === 'postgresql:') return 'postgres'
  throw new Error(
    `the store URL must be postgres://… (a PostgreSQL database), not ${protocol}//…; without one the daemon uses SQLite in its data directory`,
  )
}

/** The URL without its password, for logs and messages. */
export function redactedStoreUrl(url: string): string {
  try {
    const u = new URL(url)
    if (u.password !== '') u.password = '***'
    return u.toString()
  } catch {
    return '(unparseable URL)'
  }
}

/**
 * Opens (and migrates) the store: the PostgreSQL database at `url`, else SQLite at `sqlitePath`. `onError`
 * hears of connections that broke while idle (the pool drops them and reconnects when next needed).
 */
export async function openStore(url: string | undefined, sqlitePath: string, onError?: (e: Error) => void): Promise<Store> {
  if (storeKindOf(url) === 'sqlite') return openSqliteStore({path: sqlitePath})
  const {openPostgresStore} = await import('./postgres.js')
  return openPostgresStore({url: url!}, onError)
}
