/**
 * @module `node dist/bench/prepare-smart.js <name> <from> <to>`: turns one of the classic SMART-format test
 * collections (MED, CISI, CACM: `.I`/`.T`/`.W` records and a relevance file) into the layout every shared
 * evaluation collection has (`docs.jsonl`, `queries.jsonl`, `qrels.tsv`, as Cranfield's in
 * shared/search-eval), so `npm run eval:search` can read it. The collections are not part of the project: this
 * only converts a copy someone obtained (docs/search.md, "Measurement: more collections").
 */
import {mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {QUERY_MAX} from '../src/shared/contract.js'

/** Where each collection keeps its parts, and how its relevance file is laid out. */
const LAYOUTS = {
  /** Medline abstracts (Glasgow test collections): `MED.REL` is `query doc 1`. */
  med: {docs: 'MED.ALL', queries: 'MED.QRY', qrels: 'MED.REL', qrelsColumns: {query: 0, doc: 1}},
  /** Library and information science abstracts: `CISI.REL` is `query doc 0 0.000000`. */
  cisi: {docs: 'CISI.ALL', queries: 'CISI.QRY', qrels: 'CISI.REL', qrelsColumns: {query: 0, doc: 1}},
  /** Communications of the ACM, 1958–1979 (titles, many abstracts): `qrels.text` is `query doc 0 0`. */
  cacm: {docs: 'cacm.all', queries: 'query.text', qrels: 'qrels.text', qrelsColumns: {query: 0, doc: 1}},
} as const

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

function main(): void {
  const [name, from, to] = process.argv.slice(2)
  const layout = LAYOUTS[name as keyof typeof LAYOUTS]
  if (!layout || !from || !to) {
    console.error(`usage: prepare-smart <${Object.keys(LAYOUTS).join('|')}> <folder with its files> <output folder>`)
    process.exitCode = 2
    return
  }
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

main()
