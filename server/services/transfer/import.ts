/**
 * @module An import: the whole body read first — every line validated (import-lines.ts) and spooled,
 * normalised, to a private temp file — and only when no line was rejected applied in one store
 * transaction, or none (docs/api.md "Export, import and backup"). Both steps run in slices between other requests
 * (docs/api.md, "Import").
 */
import {closeSync, mkdtempSync, openSync, readSync, rmSync} from 'node:fs'
import {open} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import type {Readable} from 'node:stream'
import type {OnConflict} from '../../../src/shared/contract.js'
import type {SimilarItem} from '../../../src/shared/types.js'
import {nowIso} from '../../lib/ids.js'
import {TimeSlice} from '../../lib/time-slice.js'
import type {Store} from '../../store/store.js'
import type {ImportOptions, ImportOutcome, ImportRecord} from '../../store/transfer-store.js'
import {type Caller, isOwner} from '../context.js'
import {clearImported} from '../safe-publish.js'
import {SimilarFinder} from '../similar.js'
import type {SensitiveChoice} from '../sensitive.js'
import {lowerUuid} from '../validate.js'
import {EXPORT_KIND, EXPORT_VERSION, IMPORT_BODY_LIMIT, IMPORT_LINE_MAX, tooLarge} from './format.js'
import {type ImportContext, LineError, validateLine} from './import-lines.js'

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
): Promise<Array<{line: number; reason: string}>> {
  const out = await open(spool, 'wx', 0o600)
  const rejected: Array<{line: number; reason: string}> = []
  const reject = (line: number, reason: string): void => {
    if (rejected.length < REJECTIONS_MAX) rejected.push({line, reason})
  }
  const ctx: ImportContext = {caller, headerSeen: false, seen: new Set(), alias: null}
  // A body that arrived whole is validated line after line without waiting on I/O: let other requests in between.
  const slice = new TimeSlice()
  const decoder = new TextDecoder('utf-8', {fatal: true})
  let pending: string[] = []
  let pendingBytes = 0
  const flush = async (): Promise<void> => {
    if (pending.length === 0) return
    await out.write(pending.join(''))
    pending = []
    pendingBytes = 0
  }
  let lineNo = 0
  let total = 0
  let parts: Buffer[] = []
  let partBytes = 0
  let oversized = false
  const finishLine = async (): Promise<void> => {
    await slice.pause()
    lineNo++
    const bytes = partBytes
    const buf = parts.length === 1 ? parts[0]! : Buffer.concat(parts)
    parts = []
    partBytes = 0
    if (oversized) {
      oversized = false
      return reject(lineNo, `line is longer than ${IMPORT_LINE_MAX / 1024 / 1024} MiB (${bytes} bytes)`)
    }
    let text: string
    try {
      text = decoder.decode(buf)
    } catch {
      return reject(lineNo, 'line is not valid UTF-8')
    }
    if (text.trim() === '') return
    try {
      const record = validateLine(ctx, lineNo, text)
      if (record.kind === EXPORT_KIND) {
        ctx.headerSeen = true
        const from = record.exported_by ? lowerUuid(record.exported_by.id) : null
        if (from && from !== caller.principal.id && !(await store.getPrincipal(from))) ctx.alias = from
      } else {
        // An entry stored here as the file has it (a second import, a backup put back) is skipped unscanned: what is
        // stored was scanned, or acknowledged for this audience, when it was written (docs/api.md, "Import").
        if (record.kind === 'entry' && (await store.transfer.storedAsIs(record.entry, importerOf(caller)))) record.unscanned = true
        else if (record.kind === 'entry') {
          const cleared = await clearImported(record.entry, sensitive, caller, store)
          if (typeof cleared === 'string') throw new LineError(cleared)
          record.entry = cleared
          const e = cleared
          if (checked.length < SIMILAR_CHECKED)
            checked.push({line: lineNo, id: e.id, title: e.title, body: e.body.slice(0, SIMILAR_BODY), anchors: e.anchors})
        }
        pending.push(`${JSON.stringify(record)}\n`)
        pendingBytes += text.length
        if (pendingBytes > 1024 * 1024) await flush()
      }
    } catch (e) {
      if (!(e instanceof LineError)) throw e
      // The first line with content is the header's place, right or wrong: later lines are records.
      ctx.headerSeen = true
      reject(lineNo, e.message)
    }
  }
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      total += chunk.length
      if (total > IMPORT_BODY_LIMIT) throw tooLarge()
      let start = 0
      for (let nl = chunk.indexOf(10, start); ; nl = chunk.indexOf(10, start)) {
        const end = nl === -1 ? chunk.length : nl
        if (!oversized && partBytes + (end - start) > IMPORT_LINE_MAX) {
          oversized = true
          parts = []
        }
        if (!oversized) parts.push(chunk.subarray(start, end))
        partBytes += end - start
        if (nl === -1) break
        await finishLine()
        start = nl + 1
      }
    }
    if (partBytes > 0 || oversized) await finishLine()
    await flush()
  } finally {
    await out.close()
  }
  if (lineNo === 0 || (!ctx.headerSeen && rejected.length === 0)) {
    reject(
      1,
      `the body is empty; an import is a kb export: a first line {"kind":"${EXPORT_KIND}","version":${EXPORT_VERSION}}, then project and entry lines`,
    )
  }
  return rejected
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

/** The spooled records, read back synchronously: the store applies them inside one transaction. */
function* readSpool(path: string): Generator<ImportRecord> {
  const fd = openSync(path, 'r')
  try {
    const chunk = Buffer.alloc(1024 * 1024)
    let rest: Buffer = Buffer.alloc(0)
    for (;;) {
      const n = readSync(fd, chunk, 0, chunk.length, null)
      if (n === 0) break
      let data = Buffer.concat([rest, chunk.subarray(0, n)])
      for (let nl = data.indexOf(10); nl !== -1; nl = data.indexOf(10)) {
        yield JSON.parse(data.subarray(0, nl).toString('utf8')) as ImportRecord
        data = data.subarray(nl + 1)
      }
      rest = Buffer.from(data)
    }
  } finally {
    closeSync(fd)
  }
}
