/**
 * @module The kb MCP tools, shared by the daemon's `/mcp` endpoint and `kb mcp` over stdio. Each tool
 * calls the kb HTTP API through a client (the CLI's `ApiClient`, or the daemon's in-process variant), so
 * validation, visibility and permission rules are the API's own, in one place.
 */
import {KbError} from '../errors.js'
import type {Comment, Detail, EntryView, JoinResult, SearchResult} from '../types.js'
import type {ApiClient} from '../client.js'
import {cutToFit, SUMMARY_TOKEN_BUDGET} from '../summary.js'
import {countTokens, tokensWithin} from '../tokens.js'

/** What the tools need from a kb API client. */
export type KbApi = Pick<ApiClient, 'search' | 'getEntry' | 'createEntry' | 'patchEntry' | 'resolve' | 'comment' | 'publish' | 'fork' | 'joinProject'>

export interface ToolContext {
  api: KbApi
  /** The project of the agent's working directory (stdio), or null when none is known. */
  projectId?: () => Promise<string | null>
}

export interface ToolAnswer {
  structured: Record<string, unknown>
  text: string
}

export interface ToolDef {
  name: string
  title: string
  description: string
  inputSchema: JsonSchema
  outputSchema: JsonSchema
  run: (args: Record<string, unknown>, ctx: ToolContext) => Promise<ToolAnswer>
}

export type JsonSchema = Record<string, unknown>

// ---- schemas (plain JSON Schema: what tools/list shows and what arguments are checked against) ----

const UUID = {type: 'string', pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$'}
const id = {...UUID, description: 'The entry id (a UUID, as returned by search_knowledge or add_knowledge)'}
const scope = {type: 'string', enum: ['private', 'project', 'global']}
const status = {type: 'string', enum: ['open', 'resolved']}
const detail = (dflt: Detail, what: string): JsonSchema => ({
  type: 'string', enum: ['summary', 'standard', 'full'], default: dflt,
  description: `${what}: summary (id, title, short body, status; ≤ 100 tokens), standard (whole body, tags, scope, url, …; ≈ 500), full (+ comments, thought chain, forks, resolution; ≈ 2,000). Default ${dflt}.`,
})
const tags = {type: 'array', maxItems: 20, items: {type: 'string', pattern: '^[A-Za-z0-9._-]{1,40}$'}, description: 'Short keywords (letters, digits, . _ -), e.g. ["sqlite", "ci"]'}
const url = {type: 'string', maxLength: 2048, description: 'A source: issue, commit, pull request or doc (absolute http(s) URL)'}
const thoughtChain = {
  type: 'array', maxItems: 100,
  description: 'Your reasoning, in order: what you observed, suspected, tried and concluded. Record it so the next agent can follow it.',
  items: {
    type: 'object', additionalProperties: false, required: ['thought'],
    properties: {
      thought: {type: 'string', minLength: 1, maxLength: 10_000},
      kind: {type: 'string', enum: ['observation', 'hypothesis', 'action', 'conclusion'], default: 'observation'},
    },
  },
}
const projectId = {...UUID, description: 'A project id (from join_project); default: the project of the working directory or of the credential'}
const object = (properties: Record<string, JsonSchema>, required: string[] = []): JsonSchema => ({type: 'object', additionalProperties: false, properties, required})

const author = {type: 'object', properties: {id: {type: 'string'}, name: {type: 'string'}}, required: ['id', 'name']}
const nullableString = {type: ['string', 'null']}
const entryOut: JsonSchema = {
  type: 'object',
  description: 'A knowledge entry; the fields present depend on the detail level',
  required: ['id', 'title', 'body', 'status'],
  properties: {
    id: {type: 'string'}, title: {type: 'string'}, body: {type: 'string'}, status, score: {type: 'number'},
    tags: {type: 'array', items: {type: 'string'}}, scope, url: nullableString, project_id: nullableString, author,
    forked_from: nullableString, created_at: {type: 'string'}, updated_at: {type: 'string'}, version: {type: 'integer'},
    comment_count: {type: 'integer'},
    comments: {type: 'array', items: {type: 'object'}}, thought_chain: {type: 'array', items: {type: 'object'}},
    branches: {type: 'array', items: {type: 'object'}}, resolution: {type: ['object', 'null']},
  },
}
const entryAnswer = {type: 'object', required: ['entry'], properties: {entry: entryOut}}

// ---- rendering ----

const budgetOf = (d: Detail): number | null => (d === 'summary' ? SUMMARY_TOKEN_BUDGET : null)

/** One entry as compact text: a header line, then the body, then what the level adds. */
function renderEntry(e: EntryView, lead = ''): {head: string; body: string; tail: string} {
  const s = e as Partial<import('../types.js').EntryFull>
  const meta = [e.status, s.scope, s.tags && s.tags.length > 0 ? `tags ${s.tags.join(',')}` : undefined, s.url ?? undefined].filter(Boolean).join(' · ')
  const head = `${lead}${e.id} — ${e.title} [${meta}]`
  const tail: string[] = []
  if (s.thought_chain && s.thought_chain.length > 0) tail.push('Thought chain:', ...s.thought_chain.map((t) => `${t.step}. (${t.kind}) ${t.thought}`))
  if (s.resolution) tail.push(`Resolved by ${s.resolution.resolved_by.name}${s.resolution.note ? `: ${s.resolution.note}` : ''}${s.resolution.url ? ` (${s.resolution.url})` : ''}`)
  if (s.comments && s.comments.length > 0) tail.push('Comments:', ...s.comments.map((c) => `- [${c.type}] ${c.author.name}: ${c.body}`))
  if (s.branches && s.branches.length > 0) tail.push('Forks:', ...s.branches.map((b) => `- ${b.id} — ${b.title} (${b.scope})`))
  return {head, body: e.body, tail: tail.join('\n')}
}

/** The text of one entry, cut (in its body) to the level's budget when it has one. */
function entryText(e: EntryView, level: Detail, lead = ''): string {
  const {head, body, tail} = renderEntry(e, lead)
  const join = (b: string): string => [head, b, tail].filter((p) => p !== '').join('\n')
  const budget = budgetOf(level)
  if (budget === null || countTokens(join(body)) <= budget) return join(body)
  return join(cutToFit(body, (b) => countTokens(join(b)) <= budget))
}

async function entryAt(ctx: ToolContext, entryId: string, level: Detail, lead: string): Promise<ToolAnswer> {
  const {entry} = await ctx.api.getEntry(entryId, level)
  return {structured: {entry}, text: entryText(entry, level, lead)}
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined)
const levelOf = (v: unknown, dflt: Detail): Detail => (v === 'summary' || v === 'standard' || v === 'full' ? v : dflt)
const pick = (args: Record<string, unknown>, keys: string[]): Record<string, unknown> =>
  Object.fromEntries(keys.filter((k) => args[k] !== undefined).map((k) => [k, args[k]]))

async function defaultProject(args: Record<string, unknown>, ctx: ToolContext): Promise<string | undefined> {
  return str(args.project_id) ?? (ctx.projectId ? (await ctx.projectId()) ?? undefined : undefined)
}

/** Search hits as text and structure, trimmed from the end until both fit in `maxTokens`. */
function searchAnswer(result: SearchResult, query: string, maxTokens: number | undefined): ToolAnswer {
  const items = [...result.items]
  let truncated = result.truncated ?? false
  const build = (): ToolAnswer => {
    const structured: Record<string, unknown> = {items, total: result.total}
    if (maxTokens !== undefined) Object.assign(structured, {truncated})
    // With max_tokens the API may have stepped a hit down a level; each is rendered at its own.
    const lines = items.map((e, i) => entryText(e, 'comments' in e ? 'full' : 'tags' in e ? 'standard' : 'summary', `${i + 1}. `))
    const more = result.total > items.length ? `\n(${items.length} of ${result.total} matches${truncated ? ', cut to fit max_tokens' : ''}; get_knowledge <id> reads one)` : ''
    const text = items.length === 0
      ? result.total === 0 ? `Nothing matches "${query}". Nothing recorded yet? add_knowledge once you have solved it.` : `${result.total} matches, none fits in max_tokens ${maxTokens}; raise max_tokens.`
      : lines.join('\n\n') + more
    return {structured, text}
  }
  const answer = build()
  if (maxTokens === undefined) return answer
  const fits = (a: ToolAnswer): boolean => tokensWithin(a.text, maxTokens) !== null && tokensWithin(JSON.stringify(a.structured), maxTokens) !== null
  if (fits(answer)) return answer
  // The most hits that fit, by bisection: counting is bounded per call, but not 100 calls in a row.
  const all = [...items]
  const keep = (n: number): ToolAnswer => {
    items.splice(0, items.length, ...all.slice(0, n))
    return build()
  }
  truncated = true
  let lo = 0
  let hi = all.length - 1
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1
    if (fits(keep(mid))) lo = mid
    else hi = mid - 1
  }
  return keep(lo)
}

// ---- the tools ----

export const TOOLS: ToolDef[] = [
  {
    name: 'search_knowledge',
    title: 'Search the knowledge base',
    description:
      'Search what your team already knows — problems, root causes, fixes and the reasoning behind them — BEFORE you start debugging or designing. ' +
      'Use the error message, symptom or topic as the query (stemmed, typo-tolerant, best match first). Answers are short summaries by default; read one with get_knowledge. ' +
      'In a project, covers that project, global entries and your private ones.',
    inputSchema: object({
      query: {type: 'string', minLength: 1, maxLength: 500, description: 'Words to search for: an error message, symptom or topic'},
      scope: {...scope, description: 'Only entries of this scope'},
      status: {...status, description: 'Only open (unsolved) or resolved entries'},
      tag: {type: 'string', minLength: 1, maxLength: 40, description: 'Only entries with this tag'},
      limit: {type: 'integer', minimum: 1, maximum: 100, default: 10, description: 'How many hits at most (default 10)'},
      detail: detail('summary', 'How much of each hit to return'),
      max_tokens: {type: 'integer', minimum: 50, maximum: 1_000_000, description: 'Fit the whole answer into this many tokens: hits step down a detail level, then the weakest are dropped'},
      project_id: projectId,
    }, ['query']),
    outputSchema: {
      type: 'object', required: ['items', 'total'],
      properties: {items: {type: 'array', items: entryOut}, total: {type: 'integer', description: 'How many entries matched'}, truncated: {type: 'boolean'}},
    },
    run: async (args, ctx) => {
      const level = levelOf(args.detail, 'summary')
      const maxTokens = typeof args.max_tokens === 'number' ? args.max_tokens : undefined
      const project = await defaultProject(args, ctx)
      if (str(args.query)!.trim() === '') throw new KbError('validation_failed', 'query must contain a word to search for')
      const result = await ctx.api.search({
        q: str(args.query)!, detail: level, limit: typeof args.limit === 'number' ? args.limit : 10,
        ...(pick(args, ['scope', 'status', 'tag'])),
        ...(project ? {project_id: project} : {}),
        ...(maxTokens !== undefined ? {max_tokens: maxTokens} : {}),
      } as Parameters<KbApi['search']>[0])
      return searchAnswer(result, str(args.query)!, maxTokens)
    },
  },
  {
    name: 'get_knowledge',
    title: 'Read a knowledge entry',
    description: 'Read one entry by id (from search_knowledge). Use detail "full" to see its comments, the thought chain that led to it, its forks and how it was resolved.',
    inputSchema: object({id, detail: detail('standard', 'How much to return')}, ['id']),
    outputSchema: entryAnswer,
    run: async (args, ctx) => entryAt(ctx, str(args.id)!, levelOf(args.detail, 'standard'), ''),
  },
  {
    name: 'add_knowledge',
    title: 'Record new knowledge',
    description:
      'Record what you learned once you have solved (or diagnosed) a problem, so the next person or agent does not start from zero: ' +
      'a title naming the problem, a body with the symptom, root cause and fix, and your reasoning as thought_chain. Search first to avoid duplicates ' +
      '(comment on or fork an existing entry instead). Scope defaults to the project when one is known, else private.',
    inputSchema: object({
      title: {type: 'string', minLength: 1, maxLength: 200, description: 'The problem in a line, e.g. the error message'},
      body: {type: 'string', minLength: 1, maxLength: 100_000, description: 'Markdown: symptom, root cause, fix; the first paragraph is what searches show'},
      tags, url, scope: {...scope, description: 'Who may see it: private (you), project (its members), global (everyone)'},
      thought_chain: thoughtChain, project_id: projectId,
      detail: detail('summary', 'How much of the new entry to return'),
    }, ['title', 'body']),
    outputSchema: entryAnswer,
    run: async (args, ctx) => {
      const project = await defaultProject(args, ctx)
      const created = await ctx.api.createEntry({
        ...(pick(args, ['title', 'body', 'tags', 'url', 'scope', 'thought_chain']) as {title: string; body: string}),
        ...(project ? {project_id: project} : {}),
      })
      const steps = created.thought_chain.length
      return entryAt(ctx, created.id, levelOf(args.detail, 'summary'), `Added (${created.scope}${steps > 0 ? `, ${steps} thought steps` : ''}): `)
    },
  },
  {
    name: 'update_knowledge',
    title: 'Change a knowledge entry',
    description: 'Change an entry you wrote: title, body, tags, url, thought chain, or status ("open" reopens a resolved entry). To mark it solved use resolve_knowledge; to widen who sees it, publish_knowledge; for someone else\'s entry, comment_on_knowledge or fork_knowledge.',
    inputSchema: object({
      id, title: {type: 'string', minLength: 1, maxLength: 200}, body: {type: 'string', minLength: 1, maxLength: 100_000}, tags, url: {type: ['string', 'null'], maxLength: 2048, description: 'A source URL, or null to remove it'},
      thought_chain: {...thoughtChain, description: 'Replaces the whole thought chain'}, status,
      detail: detail('summary', 'How much of the changed entry to return'),
    }, ['id']),
    outputSchema: entryAnswer,
    run: async (args, ctx) => {
      const changes = pick(args, ['title', 'body', 'tags', 'url', 'thought_chain', 'status'])
      if (Object.keys(changes).length === 0) throw new KbError('validation_failed', 'nothing to change: give at least one of title, body, tags, url, thought_chain, status')
      const e = await ctx.api.patchEntry(str(args.id)!, changes)
      return entryAt(ctx, e.id, levelOf(args.detail, 'summary'), `Updated (version ${e.version}): `)
    },
  },
  {
    name: 'comment_on_knowledge',
    title: 'Comment on a knowledge entry',
    description: 'Add to an entry anyone can see: a note, a supplement (more information, e.g. it also happens on macOS), a correction (something in it is wrong), or a question. Prefer this to a new entry when one already covers the problem.',
    inputSchema: object({
      id, body: {type: 'string', minLength: 1, maxLength: 20_000, description: 'The comment (Markdown)'},
      type: {type: 'string', enum: ['note', 'supplement', 'correction', 'question'], default: 'note', description: 'The kind of comment (default note)'},
    }, ['id', 'body']),
    outputSchema: {
      type: 'object', required: ['comment'],
      properties: {comment: {type: 'object', required: ['id', 'body', 'type', 'author', 'created_at'], properties: {id: {type: 'string'}, body: {type: 'string'}, type: {type: 'string'}, author, created_at: {type: 'string'}}}},
    },
    run: async (args, ctx) => {
      const c: Comment = await ctx.api.comment(str(args.id)!, pick(args, ['body', 'type']) as {body: string})
      return {structured: {comment: c}, text: `Added ${c.type} ${c.id} to entry ${str(args.id)!.toLowerCase()}.`}
    },
  },
  {
    name: 'resolve_knowledge',
    title: 'Mark a knowledge entry resolved',
    description: 'Mark an open entry solved once the fix is confirmed, with a note on what fixed it and a url (commit, pull request). Resolving a resolved entry changes nothing.',
    inputSchema: object({
      id, note: {type: 'string', maxLength: 10_000, description: 'What fixed it'}, url,
      detail: detail('summary', 'How much of the entry to return'),
    }, ['id']),
    outputSchema: entryAnswer,
    run: async (args, ctx) => {
      const e = await ctx.api.resolve(str(args.id)!, pick(args, ['note', 'url']))
      return entryAt(ctx, e.id, levelOf(args.detail, 'summary'), 'Resolved: ')
    },
  },
  {
    name: 'publish_knowledge',
    title: 'Publish a knowledge entry more widely',
    description: 'Let more people see an entry you wrote: private → project (when it has a project) → global. Without scope, the next wider one. An entry never narrows.',
    inputSchema: object({id, scope: {...scope, description: 'The new, wider scope'}, detail: detail('summary', 'How much of the entry to return')}, ['id']),
    outputSchema: entryAnswer,
    run: async (args, ctx) => {
      const e = await ctx.api.publish(str(args.id)!, pick(args, ['scope']))
      return entryAt(ctx, e.id, levelOf(args.detail, 'summary'), `Published (${e.scope}): `)
    },
  },
  {
    name: 'fork_knowledge',
    title: 'Fork a knowledge entry',
    description: 'Branch off an entry you can see to record a variant (another platform, a different root cause) without changing the original. The fork copies body, tags, url and thought chain; it is private until you publish it. Change it with update_knowledge.',
    inputSchema: object({
      id, title: {type: 'string', minLength: 1, maxLength: 200, description: 'Default "<title> (fork)"'}, scope: {...scope, description: 'Default private'},
      project_id: {...UUID, description: 'The project of the fork'}, detail: detail('summary', 'How much of the fork to return'),
    }, ['id']),
    outputSchema: entryAnswer,
    run: async (args, ctx) => {
      const e = await ctx.api.fork(str(args.id)!, pick(args, ['title', 'scope', 'project_id']))
      return entryAt(ctx, e.id, levelOf(args.detail, 'summary'), `Forked from ${e.forked_from} (${e.scope}): `)
    },
  },
  {
    name: 'join_project',
    title: 'Join the project of a git repository',
    description: "Join (or create) the kb project of a git repository by its remote (`git remote get-url origin`), so entries can be shared with the project's members. Returns the project id for project_id.",
    inputSchema: object({
      remote: {type: 'string', minLength: 1, maxLength: 2048, description: 'A git remote URL, e.g. git@github.com:acme/api.git or github.com/acme/api'},
      name: {type: 'string', minLength: 1, maxLength: 100, description: 'A name for a new project (default the repository name)'},
    }, ['remote']),
    outputSchema: {
      type: 'object', required: ['project', 'created'],
      properties: {
        project: {type: 'object', required: ['id', 'name', 'remote', 'role'], properties: {id: {type: 'string'}, name: {type: 'string'}, remote: {type: 'string'}, created_at: {type: 'string'}, role: {type: 'string'}}},
        created: {type: 'boolean'},
      },
    },
    run: async (args, ctx) => {
      const r: JoinResult = await ctx.api.joinProject(pick(args, ['remote', 'name']) as {remote: string})
      return {
        structured: {project: r.project, created: r.created},
        text: `${r.created ? 'Created' : 'Joined'} project ${r.project.name} (${r.project.remote}), id ${r.project.id}, role ${r.project.role}.`,
      }
    },
  },
]
