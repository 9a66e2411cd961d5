/**
 * @module Which store a daemon runs on: SQLite in its data directory, or the PostgreSQL database a store URL
 * names (a team server; `kb daemon run --store-url` or KB_STORE_URL). The PostgreSQL driver and node-postgres
 * are loaded only then.
 */
import type {Store} from './store.js'
import {openSqliteStore} from './sqlite.js'

export type StoreKind = 'sqlite' | 'postgres'

/**
 * The kind of store a URL names; throws a message for the user when it names none kb knows. Only the scheme is
 * read here: node-postgres parses the rest, including libpq's socket form `postgres://kb@/kb?host=/run/postgresql`,
 * which WHATWG's URL refuses (a user without a host).
 */
export function storeKindOf(url: string | undefined): StoreKind {
  if (url === undefined) return 'sqlite'
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url)?.[1]?.toLowerCase()
  if (scheme === undefined) throw new Error('the store URL is not a URL; use postgres://user:password@host:5432/database')
  if (scheme === 'postgres' || scheme === 'postgresql') return 'postgres'
  throw new Error(
    `the store URL must be postgres://… (a PostgreSQL database), not ${scheme}://…; without one the daemon uses SQLite in its data directory`,
  )
}

/** The URL without its password (after the user's name, or a `password=` parameter), for logs and messages. */
export function redactedStoreUrl(url: string): string {
  const authority = url.indexOf('//') + 2
  const rest = url.slice(authority)
  const pathAt = rest.search(/[/?#]/)
  const head = pathAt === -1 ? rest : rest.slice(0, pathAt)
  const at = head.lastIndexOf('@')
  const colon = head.indexOf(':')
  const hidden = colon !== -1 && colon < at ? `${head.slice(0, colon)}:***${head.slice(at)}` : head
  const tail = pathAt === -1 ? '' : rest.slice(pathAt)
  return url.slice(0, authority) + hidden + tail.replace(/([?&]password=)[^&#]*/gi, '$1***')
}

/** Where a daemon's store is: the store URL read once, into the kind it names and what that kind opens. */
export type StoreTarget = {kind: 'sqlite'; path: string} | {kind: 'postgres'; url: string}

/** The PostgreSQL database `url` names, else SQLite at `sqlitePath`; throws as `storeKindOf` does. */
export function storeTarget(url: string | undefined, sqlitePath: string): StoreTarget {
  return url !== undefined && storeKindOf(url) === 'postgres' ? {kind: 'postgres', url} : {kind: 'sqlite', path: sqlitePath}
}

/**
 * Opens (and migrates) the store. `onError` hears of PostgreSQL connections that broke while idle (the pool drops
 * them and reconnects when next needed).
 */
export async function openStore(target: StoreTarget, onError?: (e: Error) => void): Promise<Store> {
  if (target.kind === 'sqlite') return openSqliteStore({path: target.path})
  const {openPostgresStore} = await import('./postgres.js')
  return openPostgresStore({url: target.url}, onError)
}
