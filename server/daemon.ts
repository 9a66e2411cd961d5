/**
 * @module The daemon process: its store (SQLite in the data directory, one daemon per directory under a lock
 * file; or a team server's PostgreSQL, shared by any number of daemons), the owner bootstrap, listening,
 * and a graceful stop on SIGTERM/SIGINT (stop accepting, finish in-flight requests, close the store).
 */
import {mkdirSync, readdirSync, rmSync} from 'node:fs'
import {randomBytes} from 'node:crypto'
import {dirname, join} from 'node:path'
import type {IncomingMessage, ServerResponse} from 'node:http'
import type {FastifyInstance} from 'fastify'
import {KbError} from '../src/shared/errors.js'
import {dataFiles, type DaemonInfo} from '../src/shared/paths.js'
import {API_PREFIX, buildApp, type AppOptions} from './app.js'
import type {FastLane} from './http/fast-get.js'
import {acquireLock, DaemonError, settleOwnerKey, writePrivateFile} from './daemon-files.js'
import {lostDatabase, unsafeDataDir} from './data-dir.js'
import {openStore, redactedStoreUrl, storeTarget, type StoreTarget} from './store/open.js'
import type {Store} from './store/store.js'

export {DaemonError} from './daemon-files.js'

export interface DaemonOptions {
  dataDir: string
  host: string
  port: number
  version: string
  allowedHosts?: string[]
  publicBaseUrl?: string
  logLevel?: string
  /** The file the starter sent this process's stderr (its log) to; absent in the foreground. */
  logFile?: string
  /** postgres://… : run on that PostgreSQL database (a team server) instead of SQLite in the data directory. */
  storeUrl?: string
  /** Days a recall's record is kept (docs/api.md, "Recall"). */
  recallRetentionDays?: number
  /** `--open-projects`: anyone who knows a remote joins its project, without approval (docs/api.md, "Membership"). */
  openProjects?: boolean
  /** false (`--no-web`): the API alone, no web view (docs/web.md). */
  web?: boolean
}

type DataFiles = ReturnType<typeof dataFiles>

/** Runs the daemon until a signal stops it. Resolves with the listening URL once it accepts requests. */
export async function startDaemon(
  o: DaemonOptions,
): Promise<{url: string; info: DaemonInfo; stop: () => Promise<void>; fastLane: FastLane}> {
  const files = dataFiles(o.dataDir)
  const {target, releaseLock} = claimDataDir(o, files)
  // Connections that break while idle are reported once the app's logger exists.
  let onStoreError = (_e: Error): void => {}
  const store = await openOrExplain(target, releaseLock, (e) => onStoreError(e))
  // Before listening: once the port answers, daemon.secret is this daemon's.
  const proofSecret = randomBytes(32)
  let info: DaemonInfo | null = null
  writePrivateFile(files.secret, `${proofSecret.toString('hex')}\n`)
  const {app, services, fastLane} = await buildApp(appOptions(o, store, target, proofSecret, () => info))
  // Not the error itself: pg-pool hangs the client on it (buffers, parameters, the backend's cancel key).
  onStoreError = (e) =>
    app.log.warn(
      {err: {type: e.name, message: e.message, code: (e as {code?: unknown}).code}},
      'store: a database connection broke; the next request opens another',
    )
  if (target.kind === 'postgres') app.log.info({store: redactedStoreUrl(target.url)}, 'store: PostgreSQL')
  await settleOwnerKey(services.apiKeys, files.ownerKey, app.log)
  const url = await listenOn(app, o, async () => {
    await store.close()
    releaseLock()
  })
  const started: DaemonInfo = {
    pid: process.pid,
    url,
    version: o.version,
    started_at: new Date().toISOString(),
    data_dir: o.dataDir,
    log: o.logFile ?? null,
  }
  info = started
  writePrivateFile(files.daemonJson, `${JSON.stringify(started, null, 2)}\n`)
  app.log.info({url, pid: process.pid, dataDir: o.dataDir}, 'kb daemon listening')
  const stop = gracefulStop(app, async () => {
    await store.close()
    rmSync(files.daemonJson, {force: true})
    releaseLock()
  })
  return {url, info: started, stop, fastLane}
}

/**
 * The data directory made (0700) and checked, the store URL read once; for SQLite, the directory's lock taken, a
 * lost database refused and the snapshots a dead daemon's backups left removed.
 */
function claimDataDir(o: DaemonOptions, files: DataFiles): {target: StoreTarget; releaseLock: () => void} {
  mkdirSync(o.dataDir, {recursive: true, mode: 0o700})
  const unsafe = unsafeDataDir(o.dataDir)
  if (unsafe) throw new DaemonError(unsafe)
  let target: StoreTarget
  try {
    target = storeTarget(o.storeUrl, files.db)
  } catch (e) {
    throw new DaemonError((e as Error).message)
  }
  // SQLite is one file with one writer: one daemon per data directory. PostgreSQL daemons run side by side.
  if (target.kind === 'postgres') return {target, releaseLock: (): void => {}}
  const releaseLock = acquireLock(files.lock)
  const lost = lostDatabase(files.db, files.ownerKey)
  if (lost) {
    releaseLock()
    throw new DaemonError(lost)
  }
  // Snapshots being streamed by `GET /backup` when a previous daemon died; holding the lock, we know no
  // one is streaming them now.
  for (const name of readdirSync(o.dataDir)) {
    if (/^\.kb-backup-[0-9a-f-]+\.sqlite(-wal|-shm|-journal)?$/.test(name)) rmSync(join(o.dataDir, name), {force: true})
  }
  return {target, releaseLock}
}

/** The store opened; a PostgreSQL database that cannot be opened is said with its URL, the password hidden. */
async function openOrExplain(target: StoreTarget, releaseLock: () => void, onError: (e: Error) => void): Promise<Store> {
  try {
    return await openStore(target, onError)
  } catch (e) {
    releaseLock()
    if (target.kind === 'postgres' && !(e instanceof DaemonError)) {
      const cause = e instanceof KbError && e.cause instanceof Error ? e.cause : (e as Error)
      throw new DaemonError(`could not open the PostgreSQL store ${redactedStoreUrl(target.url)}: ${cause.message}`)
    }
    throw e
  }
}

/** What the app is built with, from the daemon's options. */
function appOptions(o: DaemonOptions, store: Store, target: StoreTarget, proofSecret: Buffer, info: () => DaemonInfo | null): AppOptions {
  return {
    store,
    version: o.version,
    logLevel: o.logLevel ?? 'info',
    // The address it listens on is a name it answers to (`--host 127.0.0.2`); a wildcard is not a name.
    allowedHosts: [
      ...(o.allowedHosts ?? []),
      ...(o.host === '0.0.0.0' || o.host === '::' ? [] : [o.host.includes(':') ? `[${o.host}]` : o.host]),
    ],
    ...(o.publicBaseUrl ? {publicBaseUrl: o.publicBaseUrl} : {}),
    proofSecret,
    ...(o.recallRetentionDays === undefined ? {} : {recallRetentionDays: o.recallRetentionDays}),
    ...(o.openProjects ? {openProjects: true} : {}),
    ...(o.web === false ? {web: false} : {}),
    ...(isLoopbackAddress(o.host) ? {localInfo: info} : {}),
    ...(target.kind === 'sqlite' ? {storeDir: dirname(target.path)} : {}),
  }
}

/** Listens on the host and port asked for (a port in use said so, after `release`); the daemon's API URL. */
async function listenOn(app: FastifyInstance, o: DaemonOptions, release: () => Promise<void>): Promise<string> {
  if (!isLoopbackAddress(o.host))
    app.log.warn({host: o.host}, 'listening on a non-loopback address: anyone who can reach it and holds a key can use it')
  try {
    await app.listen({host: o.host, port: o.port})
  } catch (e) {
    await release()
    const code = (e as NodeJS.ErrnoException).code
    if (code === 'EADDRINUSE') throw new DaemonError(`port ${o.port} on ${o.host} is already in use; stop what holds it or pass --port`)
    throw e
  }
  const address = app.server.address()
  const port = typeof address === 'object' && address ? address.port : o.port
  const hostForUrl = o.host.includes(':') ? `[${o.host}]` : o.host === '0.0.0.0' ? '127.0.0.1' : o.host
  return `http://${hostForUrl}:${port}${API_PREFIX}`
}

/** The stop: in-flight requests finished, then `release` (the store closed, daemon.json and the lock removed); once. */
function gracefulStop(app: FastifyInstance, release: () => Promise<void>): () => Promise<void> {
  // A keep-alive connection whose request is still in flight when the stop begins would otherwise stay
  // open for fastify's 72 s keep-alive timeout after its answer, holding the exit back that long: such
  // answers say `Connection: close`, and every connection that falls idle while stopping is closed.
  const inFlight = new Set<ServerResponse>()
  app.server.on('request', (_req: IncomingMessage, res: ServerResponse) => {
    inFlight.add(res)
    res.once('close', () => {
      inFlight.delete(res)
      if (stopping) app.server.closeIdleConnections()
    })
  })
  let stopping: Promise<void> | null = null
  return (): Promise<void> => {
    stopping ??= (async () => {
      app.log.info('stopping: finishing in-flight requests')
      for (const res of inFlight) if (!res.headersSent) res.setHeader('Connection', 'close')
      await app.close()
      await release()
    })()
    return stopping
  }
}

function isLoopbackAddress(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)
}
