/**
 * @module Where a worker thread's compiled module is: beside the caller in `dist/`, or — when the daemon runs from its
 * TypeScript sources, as in tests — the build's copy (`npm test` builds first). Null when neither is there: the
 * caller then does the work on the event loop, as it would without the thread.
 */
import {existsSync} from 'node:fs'
import {fileURLToPath} from 'node:url'

/** The worker module `name` (e.g. `line-worker.js`) of the folder `dir` below the root (e.g. `server/services/transfer`). */
export function workerFile(callerUrl: string, dir: string, name: string): URL | null {
  const depth = dir.split('/').length
  const candidates = [new URL(`./${name}`, callerUrl), new URL(`${'../'.repeat(depth)}dist/${dir}/${name}`, callerUrl)]
  return candidates.find((u) => existsSync(fileURLToPath(u))) ?? null
}
