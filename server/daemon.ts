/**
 * @module The daemon process: its store (SQLite in the data directory, one daemon per directory under a lock
 * file; or a team server's PostgreSQL, shared by any number of daemons), the owner bootstrap, listening,
 * and a graceful stop on SIGTERM/SIGINT (stop accepting, finish in-flight requests, close the store).
 */
import {
  chmodSync,
  closeSync,
  existsSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs'
import {randomBytes} from 'node:crypto'
import {dirname, join} from 'node:path'
import type {IncomingMessage, ServerResponse} from 'node:http'
import {KbError} from '../src/shared/errors.js'
import {dataFiles, type DaemonInfo} from '../src/shared/paths.js'
import {API_PREFIX, buildApp} from './app.js'
import {lostDatabase, unsafeDataDir} from './data-dir.js'
import {openStore, redactedStoreUrl, storeKindOf} from './store/open.js'
import type {Store} from './store/store.js'

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

export class DaemonError extends Error {}

/**
 * Takes the data directory's lock, or explains who holds it. The lock file appears atomically with
 * the pid already in it (written aside, then hard-linked into place), so a second starter never sees an
 * empty lock. Stale locks of dead processes are taken over.
 */
export function acquireLock(lockPath: string): () => void {
  const release = (): void => {
    try {
      if (readFileSync(lockPath, 'utf8').trim() === String(process.pid)) rmSync(lockPath)
    } catch {
      // already gone
    }
  }
  const aside = `${lockPath}.${process.pid}.tmp`
  try {
    // Inside the try: on a full disk the write fails after the file was made, and it must not stay behind.
    writePrivateFile(aside, `${process.pid}\n`)
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        linkSync(aside, lockPath)
        return release
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e
        let pid = Number.NaN
        try {
          pid = Number.parseInt(readFileSync(lockPath, 'utf8'), 10)
        } catch {
          continue // removed meanwhile: try again
        }
        if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && isAlive(pid)) {
          throw new DaemonError(
            `another kb daemon (pid ${pid}) already uses the data directory ${dirname(lockPath)}; stop it with \`KB_DATA_DIR=${dirname(lockPath)} kb daemon stop\`, or pass another --data-dir`,
          )
        }
        rmSync(lockPath, {force: true})
      }
    }
    throw new DaemonError(`could not take the lock ${lockPath}`)
  } finally {
    rmSync(aside, {force: true})
  }
}

function isLoopbackAddress(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** Writes a file with mode 0600 and fsyncs it. */
function writePrivateFile(path: string, content: string): void {
  const fd = openSync(path, 'w', 0o600)
  try {
    writeSync(fd, content)
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
  chmodSync(path, 0o600)
}

/** Runs the daemon until a signal stops it. Resolves with the listening URL once it accepts requests. */
export async function startDaemon(o: DaemonOptions): Promise<{url: string; info: DaemonInfo; stop: () => Promise<void>}> {
  mkdirSync(o.dataDir, {recursive: true, mode: 0o700})
  const unsafe = unsafeDataDir(o.dataDir)
  if (unsafe) throw new DaemonError(unsafe)
  const files = dataFiles(o.dataDir)
  let kind
  try {
    kind = storeKindOf(o.storeUrl)
  } catch (e) {
    throw new DaemonError((e as Error).message)
  }
  // SQLite is one file with one writer: one daemon per data directory. PostgreSQL daemons run side by side.
  const releaseLock = kind === 'sqlite' ? acquireLock(files.lock) : (): void => {}
  if (kind === 'sqlite') {
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
  }
  // Connections that break while idle are reported once the app's logger exists.
  let onStoreError = (_e: Error): void => {}
  let store: Store
  try {
    store = await openStore(o.storeUrl, files.db, (e) => onStoreError(e))
  } catch (e) {
    releaseLock()
    if (kind === 'postgres' && !(e instanceof DaemonError)) {
      const cause = e instanceof KbError && e.cause instanceof Error ? e.cause : (e as Error)
      throw new DaemonError(`could not open the PostgreSQL store ${redactedStoreUrl(o.storeUrl!)}: ${cause.message}`)
    }
    throw e
  }
  // Before listening: once the port answers, daemon.secret is this daemon's.
  const proofSecret = randomBytes(32)
  let info: DaemonInfo | null = null
  writePrivateFile(files.secret, `${proofSecret.toString('hex')}\n`)
  const {app, services} = await buildApp({
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
    ...(isLoopbackAddress(o.host) ? {localInfo: () => info} : {}),
    ...(kind === 'sqlite' ? {storeDir: dirname(files.db)} : {}),
  })
  // Not the error itself: pg-pool hangs the client on it (buffers, parameters, the backend's cancel key).
  onStoreError = (e) =>
    app.log.warn(
      {err: {type: e.name, message: e.message, code: (e as {code?: unknown}).code}},
      'store: a database connection broke; the next request opens another',
    )
  if (kind === 'postgres') app.log.info({store: redactedStoreUrl(o.storeUrl!)}, 'store: PostgreSQL')
  const ownerKey = await services.apiKeys.bootstrapOwner()
  if (ownerKey) {
    // Never a new owner key over an old one (a team server's new, empty database): the old file is kept aside.
    if (existsSync(files.ownerKey) && readFileSync(files.ownerKey, 'utf8').trim() !== '') {
      renameSync(files.ownerKey, `${files.ownerKey}.stale`)
      app.log.warn({file: files.ownerKey}, 'the store had no owner yet: a new owner key is in owner.key, the old file is owner.key.stale')
    }
    writePrivateFile(files.ownerKey, `${ownerKey}\n`)
    app.log.info({file: files.ownerKey}, 'created the owner principal; its API key is in owner.key')
  } else if (!existsSync(files.ownerKey)) {
    // Deleted on purpose (to retire the key) or by mistake: either way said at every start, as a warning.
    app.log.warn(
      {file: files.ownerKey},
      'owner.key is missing: the owner key is not on disk. Create keys with an existing credential, or write an empty owner.key and restart to get a new owner key',
    )
  } else {
    const reissued = await services.apiKeys.reissueOwnerKey(readFileSync(files.ownerKey, 'utf8').trim())
    if (reissued) {
      // Kept, not lost: it may still open the store it came from (a restore rolled back).
      renameSync(files.ownerKey, `${files.ownerKey}.stale`)
      writePrivateFile(files.ownerKey, `${reissued}\n`)
      app.log.warn(
        {file: files.ownerKey},
        'owner.key was not a key of this store (restored from elsewhere?): a new owner key is in it, the old file is owner.key.stale',
      )
    }
  }
  if (!isLoopbackAddress(o.host))
    app.log.warn({host: o.host}, 'listening on a non-loopback address: anyone who can reach it and holds a key can use it')
  try {
    await app.listen({host: o.host, port: o.port})
  } catch (e) {
    await store.close()
    releaseLock()
    const code = (e as NodeJS.ErrnoException).code
    if (code === 'EADDRINUSE') throw new DaemonError(`port ${o.port} on ${o.host} is already in use; stop what holds it or pass --port`)
    throw e
  }
  const address = app.server.address()
  const port = typeof address === 'object' && address ? address.port : o.port
  const hostForUrl = o.host.includes(':') ? `[${o.host}]` : o.host === '0.0.0.0' ? '127.0.0.1' : o.host
  const url = `http://${hostForUrl}:${port}${API_PREFIX}`
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
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      app.log.info('stopping: finishing in-flight requests')
      for (const res of inFlight) if (!res.headersSent) res.setHeader('Connection', 'close')
      await app.close()
      await store.close()
      rmSync(files.daemonJson, {force: true})
      releaseLock()
    })()
    return stopping
  }
  return {url, info: started, stop}
}
