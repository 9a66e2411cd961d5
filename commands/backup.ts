/**
 * @module `kb backup`: a consistent copy of the live store, taken by the daemon with SQLite's online
 * backup while it keeps serving, written to a file and verified by opening it.
 */
import {createWriteStream, fsyncSync, openSync, closeSync, renameSync, rmSync, statSync} from 'node:fs'
import {dirname} from 'node:path'
import {pipeline} from 'node:stream/promises'
import {Args} from '@oclif/core'
import {KbError} from '../src/shared/errors.js'
import {KbCommand} from '../src/cli/base.js'
import {streamRequest} from '../src/cli/client/stream.js'
import {progressWanted, startProgress} from '../src/cli/output/progress.js'

export interface BackupResult {
  file: string
  bytes: number
  entries: number
  schema_version: number
}

export default class Backup extends KbCommand<typeof Backup> {
  static override summary = 'Back up the whole store while the daemon runs (owner only)'
  static override description =
    'Writes a SQLite database file holding everything, checked with PRAGMA integrity_check before it replaces <file>. To restore, stop the daemon and put the file in its place as kb.sqlite (docs/operations.md).'
  static override examples = ['<%= config.bin %> backup ~/backups/kb-$(date +%F).sqlite']
  static override args = {file: Args.string({description: 'where to write the copy', required: true})}

  async run(): Promise<BackupResult> {
    const {file} = this.args
    // Said before the daemon copies anything, in the user's words rather than an ENOENT on the `.partial` file.
    const dir = dirname(file)
    if (!statSync(dir, {throwIfNoEntry: false})?.isDirectory())
      throw new KbError('usage', `cannot write ${file}: there is no directory ${dir}; create it first (mkdir -p ${dir})`)
    const client = await this.client()
    const progress = await startProgress('kb backup', {}, progressWanted(this.jsonEnabled()))
    const partial = `${file}.partial`
    try {
      progress.phase('the daemon is taking a consistent copy of the store')
      const res = await streamRequest(client, {method: 'GET', path: '/backup', accept: 'application/vnd.sqlite3'}, this.provenAddress())
      const length = Number(res.headers['content-length'])
      if (Number.isSafeInteger(length)) progress.total({bytes: length})
      let bytes = 0
      res.on('data', (chunk: Buffer) => progress.update({bytes: (bytes += chunk.length)}))
      await pipeline(res, createWriteStream(partial, {mode: 0o600}))
      progress.phase('checking the copy (PRAGMA integrity_check)')
      const fd = openSync(partial, 'r')
      fsyncSync(fd)
      closeSync(fd)
      const checked = await verify(partial)
      progress.stop()
      renameSync(partial, file)
      const result = {file, ...checked}
      this.out(`Backed up ${checked.entries} entries (${checked.bytes} bytes) to ${file}; integrity check ok`)
      return result
    } finally {
      progress.stop()
      for (const suffix of ['', '-wal', '-shm']) rmSync(partial + suffix, {force: true})
    }
  }
}

/** Opens the copy and checks it whole; better-sqlite3 is loaded here only, off every other command's path. */
async function verify(path: string): Promise<{bytes: number; entries: number; schema_version: number}> {
  const {default: Database} = await import('better-sqlite3')
  const {statSync} = await import('node:fs')
  let db
  try {
    db = new Database(path, {fileMustExist: true})
  } catch (e) {
    throw new KbError('internal', `the backup does not open as a SQLite database: ${(e as Error).message}`)
  }
  try {
    const integrity = db.pragma('integrity_check', {simple: true})
    if (integrity !== 'ok') throw new KbError('internal', `the backup failed its integrity check: ${String(integrity)}`)
    const entries = db.prepare('SELECT count(*) FROM entries').pluck().get() as number
    const schema = db.pragma('user_version', {simple: true}) as number
    db.pragma('journal_mode = DELETE')
    return {bytes: statSync(path).size, entries, schema_version: schema}
  } catch (e) {
    if (e instanceof KbError) throw e
    throw new KbError('internal', `the backup is not a kb store: ${(e as Error).message}`)
  } finally {
    db.close()
  }
}
