/**
 * @module kb's own test collections (bench/collections/<name>/): `code` (entries written like real kb entries —
 * error messages, stack traces, config snippets, commands — with queries of identifiers, paths, error codes and
 * versions) and `multilingual` (Chinese, Japanese, Korean, German and English). Each is `entries.jsonl`
 * ({id, title, body, tags}) and `queries.jsonl` ({id, query, relevant: {entry id: grade 1–3}}), judged before
 * any tuning and kept fixed (docs/search.md). Loaded and queried through the HTTP API like Cranfield.
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {call, type EvalResult, type KbClient, projectRoot, quantile, type QueryScore, scoreRanking} from './cranfield.js'

export const COLLECTIONS = ['code', 'multilingual'] as const
export type CollectionName = (typeof COLLECTIONS)[number]

export interface CollectionEntry {
  id: string
  title: string
  body: string
  tags: string[]
}

export interface CollectionQuery {
  id: string
  query: string
  /** Entry id → grade: 3 answers the query, 2 closely related, 1 marginal. */
  relevant: Record<string, number>
}

export interface Collection {
  name: CollectionName
  entries: CollectionEntry[]
  queries: CollectionQuery[]
}

export function loadCollection(name: CollectionName): Collection {
  const dir = join(projectRoot(), 'bench', 'collections', name)
  const jsonl = <T>(file: string): T[] =>
    readFileSync(join(dir, file), 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as T)
  return {name, entries: jsonl<CollectionEntry>('entries.jsonl'), queries: jsonl<CollectionQuery>('queries.jsonl')}
}

/** Creates every entry through `POST /knowledge`, one at a time (so creation order is the file's); returns kb id → entry id. */
export async function loadCollectionIntoKb(client: KbClient, c: Collection): Promise<Map<string, string>> {
  const byKbId = new Map<string, string>()
  for (const e of c.entries) {
    // Private: the owner sees them all, and the secret scan of shared scopes (docs/api.md) has no say in a benchmark.
    const created = await call<{id: string}>(client, 'POST', '/knowledge', {title: e.title, body: e.body, tags: e.tags, scope: 'private'})
    byKbId.set(created.id, e.id)
  }
  return byKbId
}

/** Every query through `GET /search?limit=10`, scored with graded judgments; `perQuery` gets each query's score. */
export async function evaluateCollection(
  client: KbClient,
  c: Collection,
  byKbId: Map<string, string>,
  perQuery?: (q: CollectionQuery, score: QueryScore, ranked: string[]) => void,
): Promise<EvalResult> {
  const scores: QueryScore[] = []
  const latencies: number[] = []
  for (const q of c.queries) {
    const started = performance.now()
    const res = await call<{items: Array<{id: string}>}>(client, 'GET', `/search?limit=10&q=${encodeURIComponent(q.query)}`)
    latencies.push(performance.now() - started)
    const ranked = res.items.map((i) => byKbId.get(i.id) ?? `?${i.id}`)
    const score = scoreRanking(ranked, new Map(Object.entries(q.relevant)))
    scores.push(score)
    perQuery?.(q, score, ranked)
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
