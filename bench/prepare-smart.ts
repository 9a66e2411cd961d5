/**
 * @module `node dist/bench/prepare-smart.js <name> <from> <to>`: turns one of the classic SMART-format test
 * collections (MED, CISI, CACM: `.I`/`.T`/`.W` records and a relevance file) into the layout every shared
 * evaluation collection has (`docs.jsonl`, `queries.jsonl`, `qrels.tsv`, as Cranfield's in
 * shared/search-eval), so `npm run eval:search` can read it. `--fetch` (`npm run eval:fetch`) first downloads
 * them from the Glasgow IR group's page, where they are published without a licence, so they are fetched, not
 * kept in the repository (docs/search.md, "Measurement: more collections").
 */
import {execFileSync} from 'node:child_process'
import {existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {QUERY_MAX} from '../src/shared/contract.js'
import {sharedEvalRoot} from './cranfield.js'

/** Where each collection keeps its parts, and how its relevance file is laid out. */
const LAYOUTS = {
  /** Medline abstracts (Glasgow test collections): `MED.REL` is `query doc 1`. */
  med: {docs: 'MED.ALL', queries: 'MED.QRY', qrels: 'MED.REL', qrelsColumns: {query: 0, doc: 1}, archive: 'medl/med.tar.gz'},
  /** Library and information science abstracts: `CISI.REL` is `query doc 0 0.000000`. */
  cisi: {docs: 'CISI.ALL', queries: 'CISI.QRY', qrels: 'CISI.REL', qrelsColumns: {query: 0, doc: 1}, archive: 'cisi/cisi.tar.gz'},
  /** Communications of the ACM, 1958–1979 (titles, many abstracts): `qrels.text` is `query doc 0 0`. */
  cacm: {docs: 'cacm.all', queries: 'query.text', qrels: 'qrels.text', qrelsColumns: {query: 0, doc: 1}, archive: 'cacm/cacm.tar.gz'},
} as const
type Name = keyof typeof LAYOUTS

/** Where the Glasgow IR group publishes the archives (`--from` points elsewhere, e.g. a mirror). */
const GLASGOW = 'https://ir.dcs.gla.ac.uk/resources/test_collections'

type SmartRecord = {id: string; fields: Map<string, string>}

/** `.I id` opens a record; `.X` (one capital letter) opens a field whose text runs to the next marker. */
function parseSmart(text: string): SmartRecord[] {
  const records: SmartRecord[] = []
  let field: string | null = null
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trimEnd()
    const marker = /^\.([A-Z])(?:\s+(\S.*))?$/.exec(line)
    if (marker) {
      if (marker[1] === 'I') records.push({id: String(Number(marker[2])), fields: new Map()})
      field = marker[1] === 'I' ? null : marker[1]!
      continue
    }
    const record = records.at(-1)
    if (!record || field === null) continue
    record.fields.set(field, `${record.fields.get(field) ?? ''}${line.trim()}\n`)
  }
  return records
}

const clean = (s: string | undefined): string => (s ?? '').replace(/\s+/g, ' ').trim()

/** A query as `GET /search` takes it: past QUERY_MAX characters (a few of CISI's), cut at the last space before it. */
function fitted(text: string): string {
  if (text.length <= QUERY_MAX) return text
  const cut = text.slice(0, QUERY_MAX + 1)
  return cut.slice(0, cut.lastIndexOf(' ')).trim()
}

/** Converts the collection `name` whose files are in `from` into `to`, and says what it wrote. */
function prepare(name: Name, from: string, to: string): void {
  const layout = LAYOUTS[name]
  const read = (file: string): string => readFileSync(join(from, file), 'latin1')
  // Title, then the abstract, keywords and authors (CACM asks for authors by name); a document without a title
  // is the abstract alone (MED).
  const docs = parseSmart(read(layout.docs)).map((r) => ({
    id: r.id,
    title: clean(r.fields.get('T')),
    body: [r.fields.get('W'), r.fields.get('K'), r.fields.get('A')]
      .map(clean)
      .filter((s) => s !== '')
      .join('\n\n'),
  }))
  const queries = parseSmart(read(layout.queries))
    .map((r) => ({id: r.id, text: fitted(clean(r.fields.get('W')))}))
    .filter((q) => q.text !== '')
  const qrels = new Set<string>()
  for (const line of read(layout.qrels).split(/\r?\n/)) {
    const cols = line.trim().split(/\s+/)
    if (cols.length < 3) continue
    qrels.add(`${Number(cols[layout.qrelsColumns.query])}\t${Number(cols[layout.qrelsColumns.doc])}\t1`)
  }
  mkdirSync(to, {recursive: true})
  writeFileSync(join(to, 'docs.jsonl'), docs.map((d) => JSON.stringify(d)).join('\n') + '\n')
  writeFileSync(join(to, 'queries.jsonl'), queries.map((q) => JSON.stringify(q)).join('\n') + '\n')
  writeFileSync(join(to, 'qrels.tsv'), ['query_id\tdoc_id\trelevance', ...qrels].join('\n') + '\n')
  const judged = new Set([...qrels].map((l) => l.split('\t')[0]))
  console.log(`${name}: ${docs.length} documents, ${queries.length} queries (${judged.size} judged), ${qrels.size} judgments → ${to}`)
}

/** The folder under `root` (the archive's unpacked tree) that holds `file`, searched breadth first. */
function folderOf(root: string, file: string): string | null {
  const queue = [root]
  for (let dir = queue.shift(); dir !== undefined; dir = queue.shift()) {
    const entries = readdirSync(dir, {withFileTypes: true})
    if (entries.some((e) => e.isFile() && e.name === file)) return dir
    queue.push(...entries.filter((e) => e.isDirectory()).map((e) => join(dir, e.name)))
  }
  return null
}

/**
 * Downloads each collection's archive from `base`, unpacks it with `tar` (no shell) and converts it into
 * `<root>/<name>`; the folder is replaced only once the conversion has succeeded.
 */
async function fetchAll(names: Name[], base: string, root: string): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'kb-smart-'))
  try {
    for (const name of names) {
      const url = `${base.replace(/\/+$/, '')}/${LAYOUTS[name].archive}`
      const res = await fetch(url)
      if (!res.ok) throw new Error(`${name}: ${url} answered ${res.status}`)
      const archive = join(work, `${name}.tar.gz`)
      writeFileSync(archive, Buffer.from(await res.arrayBuffer()))
      const unpacked = join(work, name)
      mkdirSync(unpacked)
      execFileSync('tar', ['-xzf', archive, '-C', unpacked], {stdio: ['ignore', 'ignore', 'pipe']})
      const from = folderOf(unpacked, LAYOUTS[name].docs)
      if (from === null) throw new Error(`${name}: ${url} holds no ${LAYOUTS[name].docs}`)
      const staged = join(work, `${name}-prepared`)
      prepare(name, from, staged)
      const to = join(root, name)
      rmSync(to, {recursive: true, force: true})
      mkdirSync(root, {recursive: true})
      renameSync(staged, to)
    }
  } finally {
    rmSync(work, {recursive: true, force: true})
  }
}

const USAGE = `usage: prepare-smart <${Object.keys(LAYOUTS).join('|')}> <folder with its files> <output folder>
       prepare-smart --fetch [--from URL] [--to FOLDER] [name …]   (default: every collection, from ${GLASGOW}, into $KB_SEARCH_EVAL_ROOT or ../shared/search-eval)`

async function main(): Promise<void> {
  const args = process.argv.slice(2)
  const isName = (a: string | undefined): a is Name => a !== undefined && Object.hasOwn(LAYOUTS, a)
  if (args[0] === '--fetch') {
    const option = (flag: string): string | undefined => (args.includes(flag) ? args[args.indexOf(flag) + 1] : undefined)
    const rest = args.slice(1).filter((a, i, all) => !a.startsWith('--') && !['--from', '--to'].includes(all[i - 1] ?? ''))
    if (!rest.every(isName)) throw new UsageError()
    const root = option('--to') ?? sharedEvalRoot()
    await fetchAll(rest.length > 0 ? rest : (Object.keys(LAYOUTS) as Name[]), option('--from') ?? GLASGOW, root)
    return
  }
  const [name, from, to] = args
  if (!isName(name) || !from || !to || !existsSync(from)) throw new UsageError()
  prepare(name, from, to)
}

class UsageError extends Error {}

main().catch((e: unknown) => {
  console.error(e instanceof UsageError ? USAGE : `prepare-smart: ${e instanceof Error ? e.message : String(e)}`)
  process.exitCode = e instanceof UsageError ? 2 : 1
})
