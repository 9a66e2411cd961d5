/**
 * @module The plain BM25 baseline `npm run eval:search` prints beside kb: SQLite FTS5's own `bm25()` over the same
 * documents (`porter unicode61`, title ×2, any query word matching), in memory, without kb's tokenizer, query
 * parsing or re-ranking — the reference point of shared/search-eval's README (docs/search.md, "Measurement").
 */
import Database from 'better-sqlite3'
import {type Cranfield, type EvalResult, type QueryScore, scoreRanking, toEntry} from './cranfield.js'

/** Any query word matching; FTS5's default (every word) finds nothing for most natural-language questions. */
function anyWord(text: string): string {
  const words = [...new Set(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])]
  return words.map((w) => `"${w}"`).join(' OR ')
}

/** nDCG@10, MRR@10 and R@10 of FTS5's `bm25()` on a collection (latency is not measured: there is no API in between). */
export function fts5Baseline(data: Cranfield): EvalResult {
  const db = new Database(':memory:')
  try {
    db.exec(`CREATE VIRTUAL TABLE docs USING fts5(title, body, tokenize = 'porter unicode61')`)
    const insert = db.prepare('INSERT INTO docs (rowid, title, body) VALUES (?, ?, ?)')
    db.transaction(() => data.docs.forEach((d, i) => insert.run(i + 1, toEntry(d).title, toEntry(d).body)))()
    const search = db.prepare('SELECT rowid FROM docs WHERE docs MATCH ? ORDER BY bm25(docs, 2.0, 1.0) LIMIT 10')
    const scores: QueryScore[] = []
    for (const q of data.queries) {
      const judged = data.qrels.get(q.id)
      if (!judged || judged.size === 0) continue
      const match = anyWord(q.text)
      const ranked = match === '' ? [] : (search.all(match) as Array<{rowid: number}>).map((r) => data.docs[r.rowid - 1]!.id)
      scores.push(scoreRanking(ranked, judged))
    }
    const mean = (f: (s: QueryScore) => number): number => scores.reduce((s, x) => s + f(x), 0) / Math.max(1, scores.length)
    return {
      queries: scores.length,
      ndcg10: mean((s) => s.ndcg),
      mrr10: mean((s) => s.rr),
      recall10: mean((s) => s.recall),
      latencyMs: {p50: Number.NaN, p99: Number.NaN},
    }
  } finally {
    db.close()
  }
}
