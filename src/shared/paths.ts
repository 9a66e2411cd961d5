/**
 * @module Where kb keeps its data (docs/architecture.md): shared by the daemon and the CLI, which reads the owner key
 * and daemon.json from the same place.
 */
import {homedir} from 'node:os'
import {join} from 'node:path'

export const DEFAULT_PORT = 7411
export const DEFAULT_HOST = '127.0.0.1'
/** The path under which the daemon serves its API; every base URL ends in it (docs/cli.md, "Global flags"). */
export const API_PATH = '/api/v1'
export const DEFAULT_BASE_URL = `http://${DEFAULT_HOST}:${DEFAULT_PORT}${API_PATH}`

/** `$KB_DATA_DIR`, else `$XDG_DATA_HOME/kb`, else `~/.local/share/kb`. */
export function dataDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.KB_DATA_DIR) return env.KB_DATA_DIR
  if (env.XDG_DATA_HOME) return join(env.XDG_DATA_HOME, 'kb')
  return join(env.HOME || homedir(), '.local', 'share', 'kb')
}

export const dataFiles = (dir: string): {db: string; daemonJson: string; log: string; lock: string; ownerKey: string; secret: string} => ({
  db: join(dir, 'kb.sqlite'),
  daemonJson: join(dir, 'daemon.json'),
  log: join(dir, 'daemon.log'),
  lock: join(dir, 'daemon.lock'),
  ownerKey: join(dir, 'owner.key'),
  /** A random secret the running daemon proves it knows (src/shared/daemon-proof.ts); new at every start. */
  secret: join(dir, 'daemon.secret'),
})

/** What a running daemon writes to `daemon.json`. */
export interface DaemonInfo {
  pid: number
  url: string
  version: string
  started_at: string
  /** Absent in files of earlier versions. */
  data_dir?: string
  /** The file its stderr (its log) goes to; null in the foreground (`kb daemon run` on a terminal or a pipe). */
  log?: string | null
}
