/**
 * @module `kb import`: reads a `kb export` file (or stdin) into the server — every line checked first,
 * then all applied in one transaction or none.
 */
import {createReadStream, statSync} from 'node:fs'
import {type Readable, Transform} from 'node:stream'
import {Args, Flags} from '@oclif/core'
import {ON_CONFLICTS} from '../src/shared/contract.js'
import {KbError} from '../src/shared/errors.js'
import {KbCommand} from '../src/cli/base.js'
import {ExportCounter} from '../src/cli/client/export-lines.js'
import {readJson, streamRequest} from '../src/cli/client/stream.js'
import {formatBytes, progressWanted, startProgress} from '../src/cli/output/progress.js'
import {oneLine} from '../src/cli/output/format.js'
import {choiceFrom, sensitiveFlags} from '../src/cli/safe-publish.js'
import {similarLines} from '../src/cli/similar.js'
import type {SimilarItem} from '../src/shared/types.js'

interface ImportReport {
  created: number
  updated: number
  skipped: number
  /** Of the skipped, those already here as the file has them (absent from servers before it was counted). */
  unchanged?: number
  principals_created: number
  dry_run: boolean
  rejected: Array<{line: number; reason: string}>
  /** Imported entries that look like ones you could already see (docs/api.md, "Curation"). */
  similar?: Array<{line: number; similar: SimilarItem[]}>
}

export default class Import extends KbCommand<typeof Import> {
  static override summary = 'Import a kb export (JSON Lines): all of it or none'
  static override description =
    'Ids are kept, so importing the same file twice changes nothing. Projects and entries that exist are skipped unless --on-conflict overwrite. Only the owner may import entries written by others. Any rejected line means nothing is imported; each is listed with its line number (exit 1).'
  static override examples = [
    '<%= config.bin %> import kb.jsonl --dry-run',
    '<%= config.bin %> import kb.jsonl --on-conflict overwrite',
    'gunzip -c global.jsonl.gz | <%= config.bin %> import -',
  ]
  static override args = {file: Args.string({description: 'the export file, or - for stdin', required: true})}
  static override flags = {
    'dry-run': Flags.boolean({description: 'check and count, change nothing', default: false}),
    'on-conflict': Flags.option({
      options: ON_CONFLICTS,
      description: 'what to do with an id that exists',
      default: 'skip' as const,
    })(),
    // Entries bound for a shared scope are scanned as a publish would be (docs/cli.md, "Safe publish").
    ...sensitiveFlags,
  }

  async run(): Promise<ImportReport> {
    const {flags, args} = this
    const choice = choiceFrom(flags)
    let body: NodeJS.ReadableStream
    let size: number | undefined
    if (args.file === '-') body = process.stdin
    else {
      try {
        const stat = statSync(args.file)
        if (!stat.isFile()) throw new KbError('usage', `${args.file} is not a file`)
        size = stat.size
      } catch (e) {
        if (e instanceof KbError) throw e
        throw new KbError('usage', `cannot read ${args.file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`)
      }
      body = createReadStream(args.file)
    }
    const client = await this.client()
    const progress = await startProgress('kb import', {...(size !== undefined ? {bytes: size} : {})}, progressWanted(this.jsonEnabled()), {
      entries: 0,
      bytes: 0,
    })
    const counter = new ExportCounter()
    const count = new Transform({
      transform(chunk: Buffer, _enc, done) {
        counter.feed(chunk)
        progress.update(counter)
        done(null, chunk)
      },
      flush(done) {
        // Sent: the server checks the last lines and applies them all in one transaction.
        progress.phase(
          `${counter.entries.toLocaleString('en-US')} entries sent (${formatBytes(counter.bytes)}); the server is ${flags['dry-run'] ? 'checking' : 'applying'} them`,
        )
        done()
      },
    })
    // A read error (the file vanished, stdin broke) ends the upload as before the count was put in between.
    body.on('error', (e: Error) => count.destroy(e))
    let report: ImportReport
    try {
      const res = await streamRequest(
        client,
        {
          method: 'POST',
          path: '/import',
          accept: 'application/json',
          contentType: 'application/x-ndjson',
          body: (body as Readable).pipe(count),
          query: {
            dry_run: flags['dry-run'] ? true : undefined,
            on_conflict: flags['on-conflict'],
            redact: choice.redact,
            acknowledge: choice.acknowledge?.join(','),
          },
        },
        this.provenAddress(),
      )
      report = await readJson<ImportReport>(res)
    } finally {
      progress.stop()
    }
    if (report.rejected.length > 0) {
      const shown = report.rejected.map((r) => `  line ${r.line}: ${oneLine(r.reason)}`).join('\n')
      if (!this.jsonEnabled()) process.stderr.write(`kb: nothing was imported; ${report.rejected.length} line(s) rejected:\n${shown}\n`)
      process.exitCode = 1
      return report
    }
    const unchanged = report.unchanged ? ` (${report.unchanged === report.skipped ? 'all' : report.unchanged} unchanged)` : ''
    const what = `${report.created} created, ${report.updated} updated, ${report.skipped} skipped${unchanged}${report.principals_created ? `, ${report.principals_created} principal(s) created` : ''}`
    this.out(report.dry_run ? `Dry run (nothing changed): would import ${what}` : `Imported: ${what}`)
    const similar = report.similar ?? []
    if (similar.length > 0 && !this.jsonEnabled()) {
      const lines = similar.flatMap((s) => [`  line ${s.line}:`, ...similarLines(s.similar).map((l) => `  ${l}`)])
      process.stderr.write(
        `kb: ${similar.length} imported entr${similar.length === 1 ? 'y looks' : 'ies look'} like entries you could already see:\n${lines.join('\n')}\n`,
      )
    }
    return report
  }
}
