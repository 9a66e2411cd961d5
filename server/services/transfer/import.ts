/**
 * @module An import: the whole body read first — every line validated (import-lines.ts) and spooled,
 * normalised, to a private temp file — and only when no line was rejected applied in one store
 * transaction, or none (docs/api.md "Export, import and backup"). Both steps run in slices between other requests
 * (docs/api.md, "Import").
 */
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import type {Readable} from 'node:stream'
import type {OnConflict} from '../../../src/shared/contract.js'
import type {SimilarItem} from '../../../src/shared/types.js'
import {nowIso} from '../../lib/ids.js'
import {TimeSlice} from '../../lib/time-slice.js'
import type {ImportedEntry} from '../../store/rows.js'
import type {Store} from '../../store/store.js'
import type {ImportOptions, ImportOutcome, ImportRecord} from '../../store/transfer-store.js'
import {type Caller, isOwner} from '../context.js'
import {clearImported} from '../safe-publish.js'
import {SimilarFinder} from '../similar.js'
import type {SensitiveChoice} from '../sensitive.js'
import {lowerUuid} from '../validate.js'
import {EXPORT_KIND, EXPORT_VERSION, IMPORT_LINE_MAX} from './format.js'
import {type ImportContext, LineError, validateLine} from './import-lines.js'
import {type LineVerdict, OffThreadLines} from './off-thread-lines.js'
import {type CutLine, LineCutter, readSpool, SpoolWriter} from './spool.js'

/** Rejections listed in one report. */
const REJECTIONS_MAX = 1000

export interface ImportReport extends ImportOutcome {
  dry_run: boolean
  /**
   * Imported entries that look like entries the importer could already see (docs/api.md, "Curation"): a report,
   * the import goes ahead. Checked for the first SIMILAR_CHECKED entry lines; entries of the import itself are left out.
   */
  similar?: Array<{line: number; similar: SimilarItem[]}>
}

/** Entry lines of one import checked for similar entries: each check is a bounded lookup (docs/search.md, "Similar entries"). */
const SIMILAR_CHECKED = 200
/** Characters of each body kept for the check (what it reads anyway). */
const SIMILAR_BODY = 8_000

type Checked = {line: number; id: string; title: string; body: string; anchors: Array<{path: string; symbol: string | null}>}

export interface ImportRequest {
  onConflict: OnConflict
  dryRun: boolean
  /** What to do about findings in entries bound for a shared scope (docs/api.md, "Safe publish"). */
  sensitive: SensitiveChoice
}

/**
 * Reads an import body (JSON Lines) to the end, validating every line; then, if none was rejected,
 * applies them all in one transaction (a dry run rolls it back). Nothing is applied otherwise.
 */
export async function importBody(store: Store, caller: Caller, body: Readable, request: ImportRequest): Promise<ImportReport> {
  const dir = mkdtempSync(join(tmpdir(), 'kb-import-'))
  const spool = join(dir, 'records.jsonl')
  try {
    const checked: Checked[] = []
    const rejected = await validateAndSpool(store, caller, body, spool, request.sensitive, checked)
    const empty: ImportReport = {created: 0, updated: 0, skipped: 0, unchanged: 0, principals_created: 0, rejected, dry_run: request.dryRun}
    if (rejected.length > 0) return empty
    const outcome = await store.transfer.applyImport(readSpool(spool), {
      onConflict: request.onConflict,
      dryRun: request.dryRun,
      at: nowIso(),
      importer: importerOf(caller),
    })
    if (outcome.rejected.length > 0) return {...empty, rejected: outcome.rejected}
    const similar = await similarOf(store, caller, checked)
    // Kept for the review queue (docs/api.md, "Review queue") unless nothing was written; by line in the answer.
    if (!request.dryRun) {
      const finder = new SimilarFinder(store)
      const idOf = new Map(checked.map((c) => [c.line, c.id]))
      for (const s of similar) await finder.record(idOf.get(s.line)!, s.similar)
    }
    return {...outcome, dry_run: request.dryRun, similar}
  } finally {
    rmSync(dir, {recursive: true, force: true})
  }
}

function importerOf(caller: Caller): ImportOptions['importer'] {
  return {id: caller.principal.id, name: caller.principal.name, owner: isOwner(caller)}
}

/** Splits the body into lines, validates each, and writes the normalised records to `spool`; returns the rejections. */
async function validateAndSpool(
  store: Store,
  caller: Caller,
  body: Readable,
  spool: string,
  sensitive: SensitiveChoice,
  checked: Checked[],
): Promise<Rejection[]> {
  const out = await SpoolWriter.create(spool)
  const lines = new LineValidator(store, caller, sensitive, out, checked)
  const cutter = new LineCutter()
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) for (const line of cutter.push(chunk)) await lines.take(line)
    const last = cutter.end()
    if (last) await lines.take(last)
    await lines.drain()
    await out.flush()
  } finally {
    lines.close()
    await out.close()
  }
  return lines.finish()
}

type Rejection = {line: number; reason: string}

/** Lines validated on the event loop before the rest go to the worker thread: a small import never waits for it to start. */
const ON_LOOP_LINES = 200
/** Lines sent to the worker at a time, and batches sent ahead of the one being spooled (bounded memory). */
const BATCH_LINES = 128
const BATCHES_AHEAD = 3

/** Lines sent to the worker: each one's text (null when none is sent) and the reason it was refused here already, if it was. */
interface Batch {
  first: number
  texts: Array<string | null>
  refused: Array<string | null>
  verdicts?: Promise<LineVerdict[]>
}

/** The validation of one import's lines, in order: the rejections so far, what the lines said of the file, the spool they go to. */
class LineValidator {
  private readonly rejected: Rejection[] = []
  private readonly ctx: ImportContext
  // A body that arrived whole is validated line after line without waiting on I/O: let other requests in between.
  private readonly slice = new TimeSlice()
  private readonly decoder = new TextDecoder('utf-8', {fatal: true})
  private lineNo = 0

  constructor(
    private readonly store: Store,
    private readonly caller: Caller,
    private readonly sensitive: SensitiveChoice,
    private readonly out: SpoolWriter,
    /** The entry lines kept for the similar check (the first SIMILAR_CHECKED). */
    private readonly checked: Checked[],
  ) {
    this.ctx = {caller, headerSeen: false, seen: new Set(), alias: null}
  }

  /** The next line: decoded, validated and spooled, or rejected with its reason (on the worker thread past the first lines). */
  async take(cut: CutLine): Promise<void> {
    await this.slice.pause()
    const lineNo = ++this.lineNo
    if (this.lines === undefined && this.ctx.headerSeen && lineNo > ON_LOOP_LINES)
      this.lines = OffThreadLines.open(this.ctx, this.sensitive, await this.store.serverSecret('acknowledgements'))
    const text = this.decode(lineNo, cut)
    if (this.lines) return this.send(lineNo, text)
    if (text === null || text.trim() === '') return
    try {
      await this.record(lineNo, text)
    } catch (e) {
      if (!(e instanceof LineError)) throw e
      // The first line with content is the header's place, right or wrong: later lines are records.
      this.ctx.headerSeen = true
      this.reject(lineNo, e.message)
    }
  }

  /** The line's text; null, and the line refused (at once, or in its turn when lines go to the worker), if it has none. */
  private decode(lineNo: number, cut: CutLine): string | null {
    const refuse = (reason: string): null => {
      if (this.lines) this.batch.refused[lineNo - this.batch.first] = reason
      else this.reject(lineNo, reason)
      return null
    }
    if (this.lines && this.batch.texts.length === 0) this.batch.first = lineNo
    if (cut.bytes === null) return refuse(`line is longer than ${IMPORT_LINE_MAX / 1024 / 1024} MiB (${cut.size} bytes)`)
    try {
      return this.decoder.decode(cut.bytes)
    } catch {
      return refuse('line is not valid UTF-8')
    }
  }

  private readonly ahead: Batch[] = []
  private batch: Batch = {first: 0, texts: [], refused: []}
  /** The entry ids of the batch being spooled that are stored here (null: not asked, as for the lines before the worker's). */
  private stored: Set<string> | null = null
  /** The worker's side of this import: undefined until the lines go there, null if they cannot. */
  private lines: OffThreadLines | null | undefined

  /** Adds the line to the batch for the worker; a full batch is sent, and the oldest spooled once enough are ahead. */
  private async send(lineNo: number, text: string | null): Promise<void> {
    const b = this.batch
    b.texts.push(text === null || text.trim() === '' ? null : text)
    b.refused[lineNo - b.first] ??= null
    if (b.texts.length < BATCH_LINES) return
    this.flushBatch()
    if (this.ahead.length > BATCHES_AHEAD) await this.settle(this.ahead.shift()!)
  }

  private flushBatch(): void {
    const b = this.batch
    if (b.texts.length === 0) return
    b.verdicts = this.lines!.validate(b.first, b.texts)
    // Waited for in turn; a failure of the thread is thrown there, not left unhandled meanwhile.
    b.verdicts.catch(() => undefined)
    this.ahead.push(b)
    this.batch = {first: 0, texts: [], refused: []}
  }

  /** The lines of a batch the worker has answered, in order: refused, or cleared and spooled. */
  private async settle(b: Batch): Promise<void> {
    const verdicts = await b.verdicts!
    // One question for the batch's entries instead of one per line (a round trip each on PostgreSQL).
    const ids = verdicts.flatMap((v) => (v && 'record' in v && v.record.kind === 'entry' ? [v.record.entry.id] : []))
    this.stored = ids.length > 0 ? await this.store.transfer.storedIds(ids) : new Set()
    for (const [i, v] of verdicts.entries()) {
      const lineNo = b.first + i
      const refused = b.refused[i]
      if (refused) this.reject(lineNo, refused)
      if (v === null) continue
      await this.slice.pause()
      if ('fault' in v) throw new Error(v.fault)
      if ('reason' in v) {
        this.reject(lineNo, v.reason)
        continue
      }
      try {
        await this.spool(lineNo, v.record, b.texts[i]!.length, v.cleared)
      } catch (e) {
        if (!(e instanceof LineError)) throw e
        this.reject(lineNo, e.message)
      }
    }
  }

  /** Every line sent to the worker, answered and spooled or refused. */
  async drain(): Promise<void> {
    if (!this.lines) return
    this.flushBatch()
    while (this.ahead.length > 0) await this.settle(this.ahead.shift()!)
  }

  /** Ends this import's use of the worker (also when it failed). */
  close(): void {
    this.lines?.close()
  }

  /** The rejections, with the one of a body that held no header (an empty body, or no line at all). */
  finish(): Rejection[] {
    if (this.lineNo === 0 || (!this.ctx.headerSeen && this.rejected.length === 0)) {
      this.reject(
        1,
        `the body is empty; an import is a kb export: a first line {"kind":"${EXPORT_KIND}","version":${EXPORT_VERSION}}, then project and entry lines`,
      )
    }
    return this.rejected
  }

  private reject(line: number, reason: string): void {
    if (this.rejected.length < REJECTIONS_MAX) this.rejected.push({line, reason})
  }

  private async record(lineNo: number, text: string): Promise<void> {
    const record = validateLine(this.ctx, lineNo, text)
    if (record.kind === EXPORT_KIND) {
      this.ctx.headerSeen = true
      const from = record.exported_by ? lowerUuid(record.exported_by.id) : null
      if (from && from !== this.caller.principal.id && !(await this.store.getPrincipal(from))) this.ctx.alias = from
      return
    }
    await this.spool(lineNo, record, text.length)
  }

  /** A record as validated: an entry cleared for its audience (by the worker already: `cleared`), then spooled. */
  private async spool(lineNo: number, record: ImportRecord, size: number, cleared?: ImportedEntry | string): Promise<void> {
    if (record.kind === 'entry') await this.clearEntry(lineNo, record, cleared)
    await this.out.add(record, size)
  }

  /**
   * An entry stored here as the file has it (a second import, a backup put back) is skipped unscanned: what is stored
   * was scanned, or acknowledged for this audience, when it was written (docs/api.md, "Import"). Any other is scanned.
   */
  private async clearEntry(
    lineNo: number,
    record: Extract<ImportRecord, {kind: 'entry'}>,
    precleared?: ImportedEntry | string,
  ): Promise<void> {
    const maybe = this.stored?.has(record.entry.id) ?? true
    if (maybe && (await this.store.transfer.storedAsIs(record.entry, importerOf(this.caller)))) {
      record.unscanned = true
      return
    }
    const cleared = precleared ?? (await clearImported(record.entry, this.sensitive, this.caller, this.store))
    if (typeof cleared === 'string') throw new LineError(cleared)
    record.entry = cleared
    if (this.checked.length < SIMILAR_CHECKED)
      this.checked.push({
        line: lineNo,
        id: cleared.id,
        title: cleared.title,
        body: cleared.body.slice(0, SIMILAR_BODY),
        anchors: cleared.anchors,
      })
  }
}

/** For each checked entry line, the entries the importer can see that look like it, other than the import's own. */
async function similarOf(store: Store, caller: Caller, checked: Checked[]): Promise<NonNullable<ImportReport['similar']>> {
  const finder = new SimilarFinder(store)
  const own = checked.map((c) => c.id)
  const out: NonNullable<ImportReport['similar']> = []
  // Each lookup is a few ms of synchronous store work on SQLite: other requests get their turn between them.
  const slice = new TimeSlice()
  for (const c of checked) {
    await slice.pause()
    const similar = await finder.find(caller, c, own)
    // By line only: the answer repeats nothing of the file but where (a dry run must not tell ids apart: docs/security.md).
    if (similar.length > 0) out.push({line: c.line, similar})
  }
  return out
}
