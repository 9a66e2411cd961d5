/**
 * @module The MCP tools' answers as text: an entry cut to its detail level's token budget, and search hits
 * trimmed until the whole answer fits in `max_tokens` (docs/mcp.md).
 */
import {KbError} from '../errors.js'
import {SUMMARY_TOKEN_BUDGET} from '../contract.js'
import {cutToFit} from '../summary.js'
import {countTokens, tokensWithin} from '../tokens.js'
import {shortId} from '../short-id.js'
import type {Anchor, Detail, EntryFull, EntryView, Finding, Freshness, SearchResult} from '../types.js'

/** What a tool returns: structured content and the text an agent reads. */
export interface ToolAnswer {
  structured: Record<string, unknown>
  text: string
}

const budgetOf = (d: Detail): number | null => (d === 'summary' ? SUMMARY_TOKEN_BUDGET : null)

/** The freshness state word: the summary level carries it alone, standard and full the whole object. */
const stateOf = (f: Freshness | string | undefined): string | undefined => (typeof f === 'string' ? f : f?.state)
const day = (t: string | null): string => (t ? t.slice(0, 10) : '')

/** `src/db/pool.ts:40-62`, `src/db/pool.ts#acquire` or the path alone. */
function anchorName(a: Pick<Anchor, 'path' | 'lines' | 'symbol'>): string {
  return `${a.path}${a.lines ? `:${a.lines}` : ''}${a.symbol ? `#${a.symbol}` : ''}`
}

/** Why it is stale and what it is anchored to (standard and full; docs/mcp.md, "Freshness, verify and flag"). */
function trustLines(e: Partial<EntryFull>): string[] {
  const out: string[] = []
  const f = e.freshness
  if (f && typeof f !== 'string') {
    if (f.reasons.length > 0) out.push('Stale:', ...f.reasons.map((r) => `- ${r.detail}${r.since ? ` (since ${day(r.since)})` : ''}`))
    if (f.verified_at) out.push(`Verified ${day(f.verified_at)}${f.verified_by ? ` by ${f.verified_by.name}` : ''}`)
  }
  if (e.anchors && e.anchors.length > 0)
    out.push('Anchors:', ...e.anchors.map((a) => `- ${anchorName(a)} (${a.state}${a.checked_at ? `, checked ${day(a.checked_at)}` : ''})`))
  return out
}

/** One entry as compact text: a header line, then the body, then what the level adds. */
function renderEntry(e: EntryView, lead = ''): {head: string; body: string; tail: string} {
  const s = e as Partial<EntryFull>
  const meta = [
    // Every level names the replacement of a superseded entry (docs/api.md, "Supersede"), the summary item included.
    e.superseded_by ? `superseded by ${e.superseded_by}` : undefined,
    e.status,
    stateOf(s.freshness as Freshness | string | undefined),
    s.scope,
    s.tags && s.tags.length > 0 ? `tags ${s.tags.join(',')}` : undefined,
    s.url ?? undefined,
  ]
    .filter(Boolean)
    .join(' · ')
  const head = `${lead}${e.id} — ${e.title} [${meta}]`
  const tail: string[] = trustLines(s)
  if (s.thought_chain && s.thought_chain.length > 0)
    tail.push('Thought chain:', ...s.thought_chain.map((t) => `${t.step}. (${t.kind}) ${t.thought}`))
  if (s.resolution)
    tail.push(
      `Resolved by ${s.resolution.resolved_by.name}${s.resolution.note ? `: ${s.resolution.note}` : ''}${s.resolution.url ? ` (${s.resolution.url})` : ''}`,
    )
  if (s.comments && s.comments.length > 0) {
    tail.push(
      s.comments_truncated ? `Comments (newest ${s.comments.length} of ${s.comment_count}):` : 'Comments:',
      ...s.comments.map((c) => `- [${c.type}] ${c.author.name}: ${c.body}`),
    )
  }
  if (s.branches && s.branches.length > 0) tail.push('Forks:', ...s.branches.map((b) => `- ${b.id} — ${b.title} (${b.scope})`))
  return {head, body: e.body, tail: tail.join('\n')}
}

/** The text of one entry, cut (in its body) to the level's budget when it has one. */
export function entryText(e: EntryView, level: Detail, lead = ''): string {
  const {head, body, tail} = renderEntry(e, lead)
  const join = (b: string): string => [head, b, tail].filter((p) => p !== '').join('\n')
  const budget = budgetOf(level)
  if (budget === null || countTokens(join(body)) <= budget) return join(body)
  return join(cutToFit(body, (b) => countTokens(join(b)) <= budget))
}

/**
 * Search hits as text and structure, trimmed from the end until both fit in `maxTokens`. Each hit is
 * rendered once, and the trimming takes turns with other work (an answer can be megabytes).
 */
export async function searchAnswer(result: SearchResult, query: string, maxTokens: number | undefined): Promise<ToolAnswer> {
  // With max_tokens the API may have stepped a hit down a level; each is rendered at its own.
  const lines = result.items.map((e, i) => entryText(e, 'comments' in e ? 'full' : 'tags' in e ? 'standard' : 'summary', `${i + 1}. `))
  let truncated = result.truncated ?? false
  const textOf = (n: number): string => {
    const more =
      result.total > n
        ? `\n(${n} of ${result.total} matches${truncated ? ', cut to fit max_tokens' : ''}; get_knowledge <id> reads one)`
        : ''
    if (n > 0) return lines.slice(0, n).join('\n\n') + more
    return result.total === 0
      ? `Nothing matches "${query}". Nothing recorded yet? add_knowledge once you have solved it.`
      : `${result.total} matches, none fits in max_tokens ${maxTokens}; raise max_tokens.`
  }
  const answer = (n: number): ToolAnswer => {
    const structured: Record<string, unknown> = {items: result.items.slice(0, n), total: result.total}
    if (maxTokens !== undefined) structured.truncated = truncated
    return {structured, text: textOf(n)}
  }
  if (maxTokens === undefined) return answer(result.items.length)
  // The structure as JSON.stringify writes it, from each hit's JSON made once.
  const json = result.items.map((e) => JSON.stringify(e))
  const jsonOf = (n: number): string => `{"items":[${json.slice(0, n).join(',')}],"total":${result.total},"truncated":${truncated}}`
  const fits = (n: number): boolean => tokensWithin(textOf(n), maxTokens) !== null && tokensWithin(jsonOf(n), maxTokens) !== null
  if (fits(result.items.length)) return answer(result.items.length)
  // The most hits that fit, by bisection: counting is bounded per call, but not 100 calls in a row.
  truncated = true
  let lo = 0
  let hi = result.items.length - 1
  while (lo < hi) {
    await new Promise((resolve) => setImmediate(resolve))
    const mid = (lo + hi + 1) >> 1
    if (fits(mid)) lo = mid
    else hi = mid - 1
  }
  return lo > 0 ? answer(lo) : ((await leanest(result, maxTokens)) ?? answer(0))
}

/**
 * The best hit alone in its leanest form — id, status and the title cut to what fits, no body — so that a budget
 * down to the tool's minimum still gets an answer (docs/mcp.md, "max_tokens"); null when not even that fits. A whole
 * id costs 17 to 33 tokens in o200k (its hex digits split unevenly), so where it leaves no room the id's short form
 * stands in: every tool takes it (docs/api.md, "Short ids").
 */
async function leanest(result: SearchResult, maxTokens: number): Promise<ToolAnswer | null> {
  const top = result.items[0]
  if (!top) return null
  const chars = Array.from(top.title)
  const make = (n: number, id: string): ToolAnswer => {
    const title = n >= chars.length ? top.title : `${chars.slice(0, n).join('')}…`
    const item = {id, title, body: '', status: top.status}
    return {
      structured: {items: [item], total: result.total, truncated: true},
      text: `1. ${title} (${top.status}) ${id}\n(1 of ${result.total}, cut to fit max_tokens; get_knowledge reads it)`,
    }
  }
  const fits = (a: ToolAnswer): boolean =>
    tokensWithin(a.text, maxTokens) !== null && tokensWithin(JSON.stringify(a.structured), maxTokens) !== null
  const id = fits(make(0, top.id)) ? top.id : shortId(top.id)
  if (!fits(make(0, id))) return null
  // The longest title that fits, by bisection over its length (each count is bounded by maxTokens).
  let lo = 0
  let hi = chars.length
  while (lo < hi) {
    await new Promise((resolve) => setImmediate(resolve))
    const mid = (lo + hi + 1) >> 1
    if (fits(make(mid, id))) lo = mid
    else hi = mid - 1
  }
  return make(lo, id)
}

/**
 * Rethrows a sensitive_content refusal (docs/mcp.md, "Safe publish") as an agent should read it: every
 * finding with its id and masked excerpt, and the two ways on; any other error as it is.
 */
export function explainRefusal(e: unknown): never {
  if (!(e instanceof KbError) || e.code !== 'sensitive_content' || !Array.isArray(e.extra?.findings)) throw e
  const findings = e.extra.findings as Finding[]
  const total = typeof e.extra.findings_total === 'number' ? e.extra.findings_total : findings.length
  const lines = findings.map((f) => `- ${f.id}: ${f.label} in ${f.field}, line ${f.line}: ${f.excerpt}`)
  if (total > findings.length) lines.push(`- and ${total - findings.length} more`)
  const ids = findings.map((f) => `"${f.id}"`).join(', ')
  throw new KbError(
    'sensitive_content',
    `it would share secrets or personal data with more readers than now:\n${lines.join('\n')}\n` +
      'Call the tool again with redact: true to replace them with [REDACTED:<kind>] (right for credentials: a token or password never needs sharing)' +
      `${total > findings.length ? '' : `, or with acknowledge: [${ids}] only if they are meant to be read as written (recorded on the entry)`}.`,
    {status: e.status, extra: e.extra},
  )
}
