/**
 * @module `kb export`: everything you may see (all of it, for the owner) as JSON Lines, streamed to
 * stdout or a file — for moves between servers and for backups that outlive the store format.
 */
import {createWriteStream, renameSync, rmSync} from 'node:fs'
import {type Readable, Transform} from 'node:stream'
import {pipeline} from 'node:stream/promises'
import {Flags} from '@oclif/core'
import {KbCommand} from '../src/cli/base.js'
import {scopeFlag} from '../src/cli/flags.js'
import {ExportCounter} from '../src/cli/client/export-lines.js'
import {streamRequest} from '../src/cli/client/stream.js'
import {formatBytes, progressWanted, startProgress} from '../src/cli/output/progress.js'

export default class Export extends KbCommand<typeof Export> {
  static override summary = 'Export knowledge as JSON Lines (stdout, or --output)'
  static override description =
    'A first line {"kind":"kb-export","version":1,…}, then one line per project and one per entry with its comments, thought chain, resolution and lineage. The owner exports everything, private entries included; others what they may see. `kb import` reads it back.'
  static override examples = [
    '<%= config.bin %> export -o kb.jsonl',
    '<%= config.bin %> export --scope global | gzip > global.jsonl.gz',
    '<%= config.bin %> export --project github.com/acme/api -o api.jsonl',
  ]
  static override flags = {
    output: Flags.string({char: 'o', description: 'write to this file (default stdout)'}),
    scope: scopeFlag('only entries of this scope'),
  }

  async run(): Promise<{lines: number; bytes: number; output: string}> {
    const {flags} = this
    const client = await this.client()
    // Only an explicit --project narrows an export; a checkout's own project would silently cut a backup short.
    const projectId = flags.project !== undefined ? await this.projectId() : null
    const res = await streamRequest(
      client,
      {
        method: 'GET',
        path: '/export',
        accept: 'application/x-ndjson',
        query: {...(flags.scope ? {scope: flags.scope} : {}), ...(projectId ? {project_id: projectId} : {})},
      },
      this.provenAddress(),
    )
    // Exported to a terminal, the lines themselves are the progress.
    const progress = await startProgress(
      'kb export',
      {},
      progressWanted(this.jsonEnabled()) && (Boolean(flags.output) || !process.stdout.isTTY),
      {entries: 0, bytes: 0},
    )
    const counter = new ExportCounter()
    const count = new Transform({
      transform(chunk: Buffer, _enc, done) {
        counter.feed(chunk)
        if (counter.announced !== undefined) progress.total({entries: counter.announced})
        progress.update(counter)
        done(null, chunk)
      },
    })
    try {
      await this.save(res, count, flags.output)
    } finally {
      progress.stop()
    }
    if (flags.output) this.note(`exported ${counter.entries} entries (${formatBytes(counter.bytes)}) to ${flags.output}`)
    return {lines: counter.lines, bytes: counter.bytes, output: flags.output ?? '-'}
  }

  /** The export to `output`, written aside and renamed when complete, or to stdout. */
  private async save(res: Readable, count: Transform, output: string | undefined): Promise<void> {
    if (output) {
      // Written aside and renamed when complete, so an interrupted export never looks like a whole one.
      const partial = `${output}.partial`
      try {
        await pipeline(res, count, createWriteStream(partial, {mode: 0o600}))
        renameSync(partial, output)
      } catch (e) {
        rmSync(partial, {force: true})
        throw e
      }
    } else {
      await pipeline(res, count, process.stdout, {end: false})
    }
  }
}
