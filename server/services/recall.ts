/**
 * @module Recall (docs/api.md, "Recall"): the knowledge a prompt hook gives an agent — the best fresh entries for
 * what the person asked, within a token budget, each with why it was chosen, secrets masked — and the record of
 * every recall (the hook's, and the MCP tools' searches and reads), which its principal can audit.
 */
import {QUERY_MAX, RECALL_CLIENT_MAX, RECALL_SESSION_MAX, RECALL_TOKENS_DEFAULT} from '../../src/shared/contract.js'
import type {RecallBody, Recalled, RecallRecord, RecallResult} from '../../src/shared/recall-schemas.js'
import {countTokens} from '../../src/shared/tokens.js'
import type {EntryStandard, EntrySummary, EntryView, Page, SearchResult} from '../../src/shared/types.js'
import {nowIso, uuidv7} from '../lib/ids.js'
import type {RecallRow} from '../store/recall-store.js'
import type {Store} from '../store/store.js'
import type {Caller} from './context.js'
import {decodeCursor, encodeCursor} from './cursor.js'
import type {KnowledgeService} from './knowledge.js'
import type {EntryQueries} from './queries.js'
import {redactFields, scanFields} from './sensitive.js'

/** Hits weighed per recall: the budget rarely holds more than a few. */
const CANDIDATES = 8
/** A hit scoring under this share of the best one is not worth the agent's attention. */
const SCORE_SHARE_MIN = 0.4
/** Words that match everywhere and so say nothing about relevance (the query parser's stop words are the search's). */
const WEAK = new Set([
  'the',
  'and',
  'for',
  'with',
  'this',
  'that',
  'what',
  'how',
  'why',
  'can',
  'you',
  'not',
  'are',
  'was',
  'use',
  'get',
  'set',
  'add',
  'make',
  'fix',
  'from',
  'into',
  'when',
  'have',
  'has',
  'does',
  'doe',
  'run',
  'work',
  'new',
])
/** The context's first line: what it is and what the agent should do with it. */
const RECALL_HEADING =
  'Knowledge from kb that may bear on this prompt (verify_knowledge when a fix works, flag_knowledge when it does not):'

/**
 * The search query for a prompt: its distinct words in order, up to QUERY_MAX characters. Quotes and a trailing
 * partial word would make phrases and completions of a text nobody typed as a query, so they are left out.
 */
function queryOfPrompt(prompt: string): string {
  const seen = new Set<string>()
  let query = ''
  for (const raw of prompt.split(/\s+/)) {
    const word = raw.replace(/["“”]/g, '').replace(/^[-+]+/, '')
    const key = word.toLowerCase()
    if (word === '' || seen.has(key)) continue
    if (query.length + word.length + 1 > QUERY_MAX - 1) break
    seen.add(key)
    query += `${word} `
  }
  return query
}

/** Matched words that carry meaning: not a stop word, at least three characters, or shaped like code. */
function strongTerms(terms: string[]): string[] {
  return terms.filter((t) => /[_.:/\d]|[a-z][A-Z]/.test(t) || (t.length >= 3 && !WEAK.has(t.toLowerCase())))
}

type Hit = SearchResult['items'][number] & {matched?: {terms: string[]}}

/** The hits worth giving: fresh, scoring near the best, each with at least two meaningful words (or one code token) in common. */
function relevant(hits: Hit[]): Hit[] {
  const best = hits[0]?.score ?? 0
  return hits.filter((h) => {
    const fresh = typeof h.freshness === 'string' ? h.freshness : (h as unknown as EntryStandard).freshness?.state
    if (fresh === 'stale' || (h.score ?? 0) < best * SCORE_SHARE_MIN) return false
    const strong = strongTerms(h.matched?.terms ?? [])
    return strong.length >= 2 || strong.some((t) => /[_.:/\d]|[a-z][A-Z]/.test(t))
  })
}

/** A header's value as recorded: one, trimmed, within its limit, without control characters; null when absent or empty. */
function headerValue(v: string | string[] | undefined, max: number): string | null {
  const one = Array.isArray(v) ? v[0] : v
  if (one === undefined) return null
  const clean = Array.from(one.replace(/[\u0000-\u001f\u007f]/g, '').trim())
    .slice(0, max)
    .join('')
  return clean === '' ? null : clean
}

function itemText(h: EntrySummary, why: string[]): string {
  const state = typeof h.freshness === 'string' ? h.freshness : 'fresh'
  return `\n- [${h.id}] ${h.title} (${state}; matched: ${why.join(', ')})\n  ${h.body.replace(/\s*\n\s*/g, ' ')}`
}

export class RecallService {
  constructor(
    private readonly store: Store,
    private readonly queries: EntryQueries,
    private readonly knowledge: KnowledgeService,
    private readonly retentionDays: number,
  ) {}

  /** Searches for the prompt, packs what is relevant into the budget, masks secrets and records what was given. */
  async recall(caller: Caller, body: RecallBody): Promise<RecallResult> {
    const budget = body.max_tokens ?? RECALL_TOKENS_DEFAULT
    const query = queryOfPrompt(body.prompt)
    const found =
      query.trim() === ''
        ? {items: [], next_cursor: null, total: 0}
        : await this.queries.search(caller, {
            q: query,
            limit: CANDIDATES,
            detail: 'summary',
            explain: true,
            ...(body.project_id ? {project_id: body.project_id} : {}),
          })
    let context = ''
    let used = 0
    const items: Recalled[] = []
    for (const h of relevant(found.items as Hit[])) {
      const why = strongTerms(h.matched?.terms ?? []).slice(0, 6)
      const text = (await this.masked(itemText(h as EntrySummary, why))) ?? ''
      const next = context === '' ? RECALL_HEADING + text : context + text
      const cost = countTokens(next)
      if (cost > budget) continue
      context = next
      used = cost
      items.push({id: h.id, title: h.title, detail: 'summary', score: h.score ?? null, freshness: 'fresh', why})
    }
    const row = await this.record(caller, {source: 'hook', client: body.client, session: body.session, query, items})
    // What a recall puts in the agent's context is a retrieval, as a read at standard is (docs/api.md, "Usage"):
    // the review queue then sees the entries agents are given, not only those they asked for by hand.
    for (const i of items) this.knowledge.usage?.note(i.id, row.at)
    return {id: row.id, at: row.at, context, tokens_used: used, items}
  }

  /**
   * Records what an MCP tool's search or read gave an agent, when the request says it is one (the `Kb-Recall-Client`
   * header the MCP tools send; docs/api.md, "Recall"); other reads are not recalls.
   */
  async recordRead(
    caller: Caller,
    source: 'mcp_search' | 'mcp_get',
    headers: Record<string, string | string[] | undefined>,
    query: string,
    items: Array<EntryView & {score?: number; matched?: {terms: string[]}}>,
  ): Promise<void> {
    const client = headerValue(headers['kb-recall-client'], RECALL_CLIENT_MAX)
    if (client === null) return
    const session = headerValue(headers['kb-recall-session'], RECALL_SESSION_MAX)
    await this.record(caller, {
      source,
      client,
      ...(session === null ? {} : {session}),
      query,
      items: items.map((e) => ({
        id: e.id,
        title: e.title,
        detail: 'title' in e && 'comments' in e ? 'full' : 'scope' in e ? 'standard' : 'summary',
        score: e.score ?? null,
        freshness: typeof e.freshness === 'string' ? e.freshness : (e.freshness?.state ?? null),
        why: e.matched?.terms.slice(0, 6) ?? [],
      })),
    })
  }

  /** Records a recall; the query is stored with its secrets masked, and records past the retention go. */
  async record(
    caller: Caller,
    r: {source: RecallRow['source']; client?: string | undefined; session?: string | undefined; query: string; items: Recalled[]},
  ): Promise<RecallRow> {
    const at = nowIso()
    const row: RecallRow = {
      id: uuidv7(),
      principal_id: caller.principal.id,
      at,
      source: r.source,
      client: r.client ?? null,
      session: r.session ?? null,
      query: (await this.masked(r.query)) ?? '',
      items: r.items,
    }
    await this.store.recalls.insert(row)
    const before = new Date(Date.parse(at) - this.retentionDays * 86_400_000).toISOString()
    await this.store.recalls.purgeBefore(before, 100)
    return row
  }

  /** The caller's own recalls, newest first, each entry with whether it was verified or flagged since. */
  async list(caller: Caller, q: {limit: number; session?: string; cursor?: string}): Promise<Page<RecallRecord>> {
    const before = q.cursor === undefined ? undefined : decodeCursor(q.cursor)
    const rows = await this.store.recalls.list(caller.principal.id, {
      limit: q.limit + 1,
      ...(q.session === undefined ? {} : {session: q.session}),
      ...(before ? {before: {at: before.at, id: before.id}} : {}),
    })
    const page = rows.slice(0, q.limit)
    const items = await Promise.all(page.map((r) => this.withOutcomes(caller, r)))
    const last = page.at(-1)
    return {items, next_cursor: rows.length > q.limit && last ? encodeCursor({at: last.at, id: last.id}) : null}
  }

  private async withOutcomes(caller: Caller, r: RecallRow): Promise<RecallRecord> {
    const items = await Promise.all(
      r.items.map(async (i) => {
        const e = await this.store.getEntry(i.id)
        // An entry the caller can no longer see tells nothing more than what was recorded.
        const visible = e !== null && (await this.knowledge.canSee(caller, e))
        const verified = visible && e.verified_at !== null && e.verified_at > r.at
        const flagged = visible && e.flagged_at !== null && e.flagged_at > r.at
        return {...i, verified_since: verified, flagged_since: flagged}
      }),
    )
    return {id: r.id, at: r.at, source: r.source, client: r.client, session: r.session, query: r.query, items}
  }

  /** The text with every secret or personal datum the scanner finds replaced by its marker. */
  private async masked(text: string): Promise<string | null> {
    const fields = [{field: 'body', text}]
    const hits = await scanFields(fields)
    if (hits.length === 0) return text
    return redactFields(fields, hits).get('body') ?? null
  }
}
