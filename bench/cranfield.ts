/**
 * @module The Cranfield 1400 test collection (shared/search-eval/cranfield): loading it, putting it into a
 * running kb daemon through the HTTP API, and the trec_eval-style metrics (nDCG@10, MRR@10, recall@10).
 */
import {existsSync, readFileSync} from 'node:fs'
import {join, resolve} from 'node:path'
import type {SqliteStore} from '../server/store/sqlite.js'
import {entryRow} from './entry-row.js'

export interface CranfieldDoc {
  id: string
  title: string
  body: string
}

export interface CranfieldQuery {
  id: string
  text: string
}

export interface Cranfield {
  docs: CranfieldDoc[]
  queries: CranfieldQuery[]
  /** query id → (doc id → relevance 1–4). */
  qrels: Map<string, Map<string, number>>
}

/** The project root, found by walking up from a module to the folder holding package.json. */
export function projectRoot(from: string = import.meta.dirname): string {
  let dir = resolve(from)
  while (!existsSync(join(dir, 'package.json'))) {
    const up = resolve(dir, '..')
    if (up === dir) throw new Error(`no package.json above ${from}`)
    dir = up
  }
  return dir
}

/** The folder of the shared evaluation collections: `$KB_SEARCH_EVAL_ROOT`, else `../shared/search-eval` from the project root. */
export function sharedEvalRoot(): string {
  return process.env.KB_SEARCH_EVAL_ROOT ?? resolve(projectRoot(), '../shared/search-eval')
}

/** `$KB_SEARCH_EVAL_DIR`, else `cranfield` in the shared collections' folder. */
export function cranfieldDir(): string {
  return process.env.KB_SEARCH_EVAL_DIR ?? join(sharedEvalRoot(), 'cranfield')
}

/**
 * A collection in Cranfield's layout (docs.jsonl, queries.jsonl, qrels.tsv; bench/prepare-smart.ts writes the
 * others so), or null when its folder is absent (it is not part of the project).
 */
export function loadCranfield(dir: string = cranfieldDir()): Cranfield | null {
  if (!existsSync(join(dir, 'docs.jsonl'))) return null
  const jsonl = <T>(file: string): T[] =>
    readFileSync(join(dir, file), 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as T)
  const qrels = new Map<string, Map<string, number>>()
  for (const line of readFileSync(join(dir, 'qrels.tsv'), 'utf8').split('\n').slice(1)) {
    const [q, d, r] = line.trim().split('\t')
    if (!q || !d || !r) continue
    const rel = Number(r)
    if (!(rel > 0)) continue
    if (!qrels.has(q)) qrels.set(q, new Map())
    qrels.get(q)!.set(d, rel)
  }
  return {docs: jsonl<CranfieldDoc>('docs.jsonl'), queries: jsonl<CranfieldQuery>('queries.jsonl'), qrels}
}

const TITLE_MAX = 200

/**
 * A document as a `POST /knowledge` body without losing text: an over-long title is cut and kept whole
 * at the head of the body; an empty title or body borrows the other's text.
 */
export function toEntry(doc: CranfieldDoc): {title: string; body: string} {
  let title = doc.title.trim()
  let body = doc.body.trim()
  if (title === '' && body === '') title = body = `document ${doc.id}`
  // A title borrowed from the body (MED's abstracts have none) is its head; the body holds it whole already.
  const borrowed = title === ''
  if (borrowed) title = body
  if (body === '') body = title
  if (title.length > TITLE_MAX) {
    if (!borrowed) body = `${title}\n\n${body}`
    title = title.slice(0, TITLE_MAX).trim()
  }
  return {title, body}
}

export interface QueryScore {
  ndcg: number
  rr: number
  recall: number
}

/** nDCG@k (gain = relevance, log2(rank+1) discount, ideal from all judged docs), reciprocal rank and recall at k. */
export function scoreRanking(ranked: string[], judged: Map<string, number>, k = 10): QueryScore {
  const top = ranked.slice(0, k)
  let dcg = 0
  let rr = 0
  let found = 0
  top.forEach((doc, i) => {
    const rel = judged.get(doc) ?? 0
    if (rel <= 0) return
    dcg += rel / Math.log2(i + 2)
    if (rr === 0) rr = 1 / (i + 1)
    found++
  })
  const ideal = [...judged.values()]
    .filter((r) => r > 0)
    .sort((a, b) => b - a)
    .slice(0, k)
  const idcg = ideal.reduce((s, rel, i) => s + rel / Math.log2(i + 2), 0)
  const relevant = [...judged.values()].filter((r) => r > 0).length
  return {ndcg: idcg > 0 ? dcg / idcg : 0, rr, recall: relevant > 0 ? found / relevant : 0}
}

export interface EvalResult {
  queries: number
  ndcg10: number
  mrr10: number
  recall10: number
  latencyMs: {p50: number; p99: number}
}

/** The value at quantile q (0–1) of the numbers, by nearest rank. */
export function quantile(values: number[], q: number): number {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!
}

export interface KbClient {
  url: string
  key: string
}

/** One request to the daemon's API with the client's key; throws on a non-2xx answer. */
export async function call<T>(client: KbClient, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(client.url + path, {
    method,
    headers: {authorization: `Bearer ${client.key}`, ...(body === undefined ? {} : {'content-type': 'application/json'})},
    ...(body === undefined ? {} : {body: JSON.stringify(body)}),
  })
  const text = await res.text()
  if (!res.ok) throw new Error(`${method} ${path} → ${res.status} ${text.slice(0, 300)}`)
  return JSON.parse(text) as T
}

/** Creates every document as an entry (a few requests in flight at once); returns entry id → doc id. */
export async function loadIntoKb(client: KbClient, docs: CranfieldDoc[], concurrency = 4): Promise<Map<string, string>> {
  const byEntry = new Map<string, string>()
  let next = 0
  const worker = async (): Promise<void> => {
    while (next < docs.length) {
      const doc = docs[next++]!
      const created = await call<{id: string}>(client, 'POST', '/knowledge', {...toEntry(doc), scope: 'global'})
      byEntry.set(created.id, doc.id)
    }
  }
  await Promise.all(Array.from({length: concurrency}, worker))
  return byEntry
}

/**
 * Puts every document in through `POST /import` (one file, as an older export would be) with `created_at` and
 * `updated_at` = `at`: an aged collection, whose freshness and confidence are what time alone makes of them
 * (docs/search.md, "Freshness and confidence"). Private entries are not scanned for secrets (docs/api.md), which
 * MED's enzyme numbers (`ec 1.14.16.1`) would trip as addresses. Returns entry id → doc id; ids follow the documents' order.
 */
export async function importIntoKb(
  client: KbClient,
  docs: CranfieldDoc[],
  at: string,
  scope: 'global' | 'private' = 'global',
): Promise<Map<string, string>> {
  const byEntry = new Map<string, string>()
  const lines = [JSON.stringify({kind: 'kb-export', version: 1})]
  docs.forEach((doc, i) => {
    const id = `00000000-0000-7000-8000-${String(i).padStart(12, '0')}`
    lines.push(JSON.stringify({kind: 'entry', id, ...toEntry(doc), scope, created_at: at, updated_at: at}))
    byEntry.set(id, doc.id)
  })
  const res = await fetch(`${client.url}/import`, {
    method: 'POST',
    headers: {authorization: `Bearer ${client.key}`, 'content-type': 'application/x-ndjson'},
    body: `${lines.join('\n')}\n`,
  })
  const text = await res.text()
  // An import is all or nothing: one rejected line (the secret scan of a shared scope) leaves the store empty.
  if (!res.ok || (JSON.parse(text) as {created: number}).created !== docs.length)
    throw new Error(`POST /import → ${res.status} ${text.slice(0, 300)}`)
  return byEntry
}

/**
 * Inserts every document through the store driver, in one transaction (the daemon must not be running
 * on the file); returns entry id → doc id. For tests that need the collection quickly; `loadIntoKb` is
 * the end-to-end path.
 */
export async function loadIntoStore(
  store: SqliteStore,
  docs: CranfieldDoc[],
  author: {id: string; name: string},
): Promise<Map<string, string>> {
  const byEntry = new Map<string, string>()
  const at = '2024-01-01T00:00:00.000Z'
  store.db.transaction(() => {
    docs.forEach((doc, i) => {
      const {title, body} = toEntry(doc)
      const id = `00000000-0000-7000-8000-${String(i).padStart(12, '0')}`
      void store.insertEntry(
        entryRow({
          id,
          title,
          body,
          summary: body.slice(0, 200),
          author,
          created_at: at,
        }),
      )
      byEntry.set(id, doc.id)
    })
  })()
  return byEntry
}

/** Runs the queries one at a time through `GET /search?limit=10` and scores them. */
export async function evaluate(
  client: KbClient,
  data: Cranfield,
  byEntry: Map<string, string>,
  queries: CranfieldQuery[] = data.queries,
): Promise<EvalResult> {
  const scores: QueryScore[] = []
  const latencies: number[] = []
  for (const q of queries) {
    const judged = data.qrels.get(q.id)
    if (!judged || judged.size === 0) continue
    const started = performance.now()
    const res = await call<{items: Array<{id: string}>}>(client, 'GET', `/search?limit=10&q=${encodeURIComponent(q.text)}`)
    latencies.push(performance.now() - started)
    scores.push(
      scoreRanking(
        res.items.map((i) => byEntry.get(i.id) ?? `?${i.id}`),
        judged,
      ),
    )
  }
  const mean = (f: (s: QueryScore) => number): number => scores.reduce((s, x) => s + f(x), 0) / Math.max(1, scores.length)
  return {
    queries: scores.length,
    ndcg10: mean((s) => s.ndcg),
    mrr10: mean((s) => s.rr),
    recall10: mean((s) => s.recall),
    latencyMs: {p50: quantile(latencies, 0.5), p99: quantile(latencies, 0.99)},
  }
}
