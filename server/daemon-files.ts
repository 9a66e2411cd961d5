/**
 * @module The daemon's own files in its data directory (docs/architecture.md): the lock that keeps one daemon per
 * SQLite directory, files written private (0600) and synced, and `owner.key` — made at the first start, kept aside
 * rather than overwritten, issued again when it is not a key of this store.
 */
import {chmodSync, closeSync, existsSync, fsyncSync, linkSync, openSync, readFileSync, renameSync, rmSync, writeSync} from 'node:fs'
import {dirname} from 'node:path'
import type {FastifyBaseLogger} from 'fastify'
import type {ApiKeyService} from './services/api-keys.js'

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

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** Writes a file with mode 0600 and fsyncs it. */
export function writePrivateFile(path: string, content: string): void {
  const fd = openSync(path, 'w', 0o600)
  try {
    writeSync(fd, content)
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
  chmodSync(path, 0o600)
}

/**
 * `owner.key` as the store needs it: written when the store made its owner now, left alone when it holds a key of
 * this store, issued again (the old file kept as owner.key.stale) when it does not; a missing file is warned about.
 */
export async function settleOwnerKey(apiKeys: ApiKeyService, ownerKeyFile: string, log: FastifyBaseLogger): Promise<void> {
  const ownerKey = await apiKeys.bootstrapOwner()
  if (ownerKey) {
    // Never a new owner key over an old one (a team server's new, empty database): the old file is kept aside.
    if (existsSync(ownerKeyFile) && readFileSync(ownerKeyFile, 'utf8').trim() !== '') {
      renameSync(ownerKeyFile, `${ownerKeyFile}.stale`)
      log.warn({file: ownerKeyFile}, 'the store had no owner yet: a new owner key is in owner.key, the old file is owner.key.stale')
    }
    writePrivateFile(ownerKeyFile, `${ownerKey}\n`)
    log.info({file: ownerKeyFile}, 'created the owner principal; its API key is in owner.key')
  } else if (!existsSync(ownerKeyFile)) {
    // Deleted on purpose (to retire the key) or by mistake: either way said at every start, as a warning.
    log.warn(
      {file: ownerKeyFile},
      'owner.key is missing: the owner key is not on disk. Create keys with an existing credential, or write an empty owner.key and restart to get a new owner key',
    )
  } else {
    const reissued = await apiKeys.reissueOwnerKey(readFileSync(ownerKeyFile, 'utf8').trim())
    if (reissued) {
      // Kept, not lost: it may still open the store it came from (a restore rolled back).
      renameSync(ownerKeyFile, `${ownerKeyFile}.stale`)
      writePrivateFile(ownerKeyFile, `${reissued}\n`)
      log.warn(
        {file: ownerKeyFile},
        'owner.key was not a key of this store (restored from elsewhere?): a new owner key is in it, the old file is owner.key.stale',
      )
    }
  }
}
