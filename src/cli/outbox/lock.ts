/**
 * @module A lock file between kb processes of one user: it appears atomically with the holder's pid already in
 * it (written aside, then hard-linked into place), and the lock of a process that died is taken over. The
 * outbox uses two: one for each short read-change-write of its file, one for a whole run of sending.
 */
import {linkSync, mkdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {dirname} from 'node:path'

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** Takes the lock once if it is free (or its holder died); a release function, or null when another process holds it. */
function tryLock(path: string): (() => void) | null {
  const aside = `${path}.${process.pid}.tmp`
  mkdirSync(dirname(path), {recursive: true, mode: 0o700})
  writeFileSync(aside, `${process.pid}\n`, {mode: 0o600})
  try {
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        linkSync(aside, path)
        return () => {
          try {
            if (readFileSync(path, 'utf8').trim() === String(process.pid)) rmSync(path)
          } catch {
            // already gone
          }
        }
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e
        let pid: number
        try {
          pid = Number.parseInt(readFileSync(path, 'utf8'), 10)
        } catch {
          continue // released meanwhile
        }
        if (Number.isInteger(pid) && pid > 0 && alive(pid)) return null
        rmSync(path, {force: true})
      }
    }
    return null
  } finally {
    rmSync(aside, {force: true})
  }
}

/**
 * Runs `fn` holding the lock at `path`, waiting up to `waitMs` for it; returns `{ran: false}` when another process
 * held it all that time.
 */
export async function withLock<T>(path: string, waitMs: number, fn: () => Promise<T>): Promise<{ran: true; value: T} | {ran: false}> {
  const deadline = Date.now() + waitMs
  let release = tryLock(path)
  while (!release && Date.now() < deadline) {
    await sleep(20)
    release = tryLock(path)
  }
  if (!release) return {ran: false}
  try {
    return {ran: true, value: await fn()}
  } finally {
    release()
  }
}
