/**
 * @module The kb MCP tools, shared by the daemon's `/mcp` endpoint and `kb mcp` over stdio. Each tool
 * calls the kb HTTP API through a client (the CLI's `ApiClient` over node:http, or the daemon's in process),
 * so validation, visibility and permission rules are the API's own, in one place; its input schema is the
 * API request's own fields (tool-schemas.ts).
 */
import {KbError} from '../errors.js'
import {COMMENT_TYPE_DEFAULT, DETAIL_DEFAULT, LIMIT_DEFAULT, TITLE_MAX} from '../contract.js'
import {CommentBody, CreateEntryBody, ForkBody, JoinProjectBody, PatchEntryBody, PublishBody, ResolveBody, SearchQuery} from '../schemas.js'
import type {Comment} from '../types.js'
import {Type} from '@sinclair/typebox'
import {explainRefusal, searchAnswer} from './render.js'
import {recentAnswer} from './recent.js'
import {entryAt, idArg, levelOf, pick, str, tool, withSimilar, type KbApi, type ToolContext, type ToolDef} from './tool-kit.js'
import {TRUST_TOOLS} from './trust-tools.js'
import {CURATION_TOOLS} from './curation-tools.js'
import {REVIEW_TOOLS} from './review-tools.js'
import {
  anchors,
  author,
  described,
  detail,
  createdAnswer,
  entryAnswer,
  entryId,
  entryOut,
  projectId,
  sensitiveChoice,
  sourceUrl,
  tags,
  thoughtChain,
  toolInput,
} from './tool-schemas.js'

/**
 * The least `max_tokens` a tool answer can honour: below it not even one hit's id, title and the status
 * line fit (docs/mcp.md). The API allows less, for callers that pack the hits themselves.
 */
const TOOL_MAX_TOKENS_MIN = 50

async function defaultProject(args: Record<string, unknown>, ctx: ToolContext): Promise<string | undefined> {
  return str(args.project_id) ?? (ctx.projectId ? ((await ctx.projectId()) ?? undefined) : undefined)
}

const S = SearchQuery.properties
const C = CreateEntryBody.properties
const P = PatchEntryBody.properties
const F = ForkBody.properties
/** Titles: the API takes a padded title and trims it; an agent is told the real bound. */
const titleBound = {maxLength: TITLE_MAX}

// ---- the tools ----

export const TOOLS: ToolDef[] = [
  tool({
    name: 'search_knowledge',
    title: 'Search the knowledge base',
    readOnly: true,
    idempotent: true,
    description:
      'Search what your team already knows — problems, root causes, fixes and the reasoning behind them — BEFORE you start debugging or designing. ' +
      'Use the error message, symptom or topic as the query (stemmed, typo-tolerant, best match first). Answers are short summaries by default; read one with get_knowledge. ' +
      'In a project, covers that project, global entries and your private ones. Without a query, lists the most recently updated entries (the same filters apply).',
    inputSchema: toolInput({
      query: Type.Optional(
        described(S.q, 'Words to search for: an error message, symptom or topic; leave it out to list the most recently updated entries'),
      ),
      scope: described(S.scope, 'Only entries of this scope'),
      status: described(S.status, 'Only open (unsolved) or resolved entries'),
      tag: described(S.tag, 'Only entries with this tag'),
      freshness: described(S.freshness, 'Only fresh entries, or only stale ones (their code changed, flagged, or not verified for long)'),
      limit: described(S.limit, `How many hits at most (default ${LIMIT_DEFAULT.search})`),
      detail: detail(DETAIL_DEFAULT.search, 'How much of each hit to return'),
      max_tokens: described(
        S.max_tokens,
        'Fit the whole answer into this many tokens: hits step down a detail level, then the weakest are dropped',
        {minimum: TOOL_MAX_TOKENS_MIN},
      ),
      project_id: projectId,
    }),
    outputSchema: {
      type: 'object',
      required: ['items', 'total'],
      properties: {
        items: {type: 'array', items: entryOut},
        total: {type: 'integer', description: 'How many entries matched'},
        truncated: {type: 'boolean'},
      },
    },
    run: async (args, ctx) => {
      const level = levelOf(args.detail, DETAIL_DEFAULT.search)
      const maxTokens = typeof args.max_tokens === 'number' ? args.max_tokens : undefined
      const project = await defaultProject(args, ctx)
      const query = str(args.query)
      if (query === undefined) return recentAnswer(ctx, args, project, level)
      if (query.trim() === '') throw new KbError('validation_failed', 'query must contain a word to search for')
      const filters = {
        q: query,
        ...pick(args, ['scope', 'status', 'tag', 'freshness']),
        ...(project ? {project_id: project} : {}),
      } as Parameters<KbApi['search']>[0]
      const limit = typeof args.limit === 'number' ? args.limit : LIMIT_DEFAULT.search
      let result = await ctx.api.search({...filters, detail: level, limit, ...(maxTokens !== undefined ? {max_tokens: maxTokens} : {})})
      // A budget too small for the API's smallest hit: the best hit alone, which the answer cuts to fit (docs/mcp.md).
      if (maxTokens !== undefined && result.items.length === 0 && result.total > 0)
        result = {...(await ctx.api.search({...filters, detail: 'summary', limit: 1})), total: result.total}
      return searchAnswer(result, query, maxTokens)
    },
  }),
  tool({
    name: 'get_knowledge',
    title: 'Read a knowledge entry',
    readOnly: true,
    idempotent: true,
    description:
      'Read one entry by id (from search_knowledge). Use detail "full" to see its comments, the thought chain that led to it, its forks and how it was resolved.',
    inputSchema: toolInput({id: entryId, detail: detail(DETAIL_DEFAULT.entry, 'How much to return')}),
    outputSchema: entryAnswer,
    run: async (args, ctx) => entryAt(ctx, await idArg(ctx, args.id), levelOf(args.detail, DETAIL_DEFAULT.entry), ''),
  }),
  tool({
    name: 'add_knowledge',
    title: 'Record new knowledge',
    description:
      'Record what you learned once you have solved (or diagnosed) a problem, so the next person or agent does not start from zero: ' +
      'a title naming the problem, a body with the symptom, root cause and fix, and your reasoning as thought_chain. Search first to avoid duplicates. ' +
      'The answer lists similar entries you can see that look like the same knowledge: if one of them already says it, comment on it ' +
      '(comment_on_knowledge) instead of adding a copy, and supersede_knowledge the copy you added if you may. ' +
      'Scope defaults to the project when one is known, else private.',
    inputSchema: toolInput({
      title: described(C.title, 'The problem in a line, e.g. the error message', titleBound),
      body: described(C.body, 'Markdown: symptom, root cause, fix; the first paragraph is what searches show'),
      tags,
      url: sourceUrl,
      scope: described(C.scope, 'Who may see it: private (you), project (its members), global (everyone)'),
      // Not the API's nullable project_id: a null here would fall back to the default project, not to none.
      thought_chain: thoughtChain,
      anchors,
      project_id: projectId,
      detail: detail('summary', 'How much of the new entry to return'),
      ...sensitiveChoice,
    }),
    outputSchema: createdAnswer,
    run: async (args, ctx) => {
      const project = await defaultProject(args, ctx)
      const created = await ctx.api
        .createEntry({
          ...(pick(args, ['title', 'body', 'tags', 'url', 'scope', 'thought_chain', 'anchors', 'redact', 'acknowledge']) as {
            title: string
            body: string
          }),
          ...(project ? {project_id: project} : {}),
        })
        .catch(explainRefusal)
      const steps = created.thought_chain.length
      const answer = await entryAt(
        ctx,
        created.id,
        levelOf(args.detail, 'summary'),
        `Added (${created.scope}${steps > 0 ? `, ${steps} thought steps` : ''}): `,
      )
      return withSimilar(answer, created.similar ?? [])
    },
  }),
  tool({
    name: 'update_knowledge',
    title: 'Change a knowledge entry',
    description:
      'Change an entry you wrote: title, body, tags, url, thought chain, anchors, or status ("open" reopens a resolved entry). To mark it solved use resolve_knowledge; to widen who sees it, publish_knowledge; for someone else\'s entry, comment_on_knowledge or fork_knowledge.',
    inputSchema: toolInput({
      id: entryId,
      title: {...P.title, ...titleBound},
      body: P.body,
      tags,
      url: described(P.url, 'A source URL, or null to remove it'),
      thought_chain: described(thoughtChain, 'Replaces the whole thought chain'),
      anchors: described(
        P.anchors,
        'Replaces the whole set of anchors ([] removes them): the code this is about, paths relative to the repository root',
      ),
      status: P.status,
      detail: detail('summary', 'How much of the changed entry to return'),
      ...sensitiveChoice,
    }),
    outputSchema: entryAnswer,
    run: async (args, ctx) => {
      const changes = pick(args, ['title', 'body', 'tags', 'url', 'thought_chain', 'anchors', 'status'])
      if (Object.keys(changes).length === 0)
        throw new KbError(
          'validation_failed',
          'nothing to change: give at least one of title, body, tags, url, thought_chain, anchors, status',
        )
      const e = await ctx.api
        .patchEntry(await idArg(ctx, args.id), {...changes, ...pick(args, ['redact', 'acknowledge'])})
        .catch(explainRefusal)
      return entryAt(ctx, e.id, levelOf(args.detail, 'summary'), `Updated (version ${e.version}): `)
    },
  }),
  tool({
    name: 'comment_on_knowledge',
    title: 'Comment on a knowledge entry',
    description:
      'Add to an entry anyone can see: a note, a supplement (more information, e.g. it also happens on macOS), a correction (something in it is wrong; ranks it a little lower until verified), or a question. Prefer this to a new entry when one already covers the problem. ' +
      'On a project or global entry, secrets and personal data in it stop the comment with a list of findings; then call again with redact: true (or acknowledge: [ids]).',
    inputSchema: toolInput({
      id: entryId,
      body: described(CommentBody.properties.body, 'The comment (Markdown)'),
      type: described(CommentBody.properties.type, `The kind of comment (default ${COMMENT_TYPE_DEFAULT})`, {
        default: COMMENT_TYPE_DEFAULT,
      }),
      ...sensitiveChoice,
    }),
    outputSchema: {
      type: 'object',
      required: ['comment'],
      properties: {
        comment: {
          type: 'object',
          required: ['id', 'body', 'type', 'author', 'created_at'],
          properties: {id: {type: 'string'}, body: {type: 'string'}, type: {type: 'string'}, author, created_at: {type: 'string'}},
        },
      },
    },
    run: async (args, ctx) => {
      const id = await idArg(ctx, args.id)
      const c: Comment = await ctx.api
        .comment(id, pick(args, ['body', 'type', 'redact', 'acknowledge']) as {body: string})
        .catch(explainRefusal)
      return {structured: {comment: c}, text: `Added ${c.type} ${c.id} to entry ${id}.`}
    },
  }),
  tool({
    name: 'resolve_knowledge',
    title: 'Mark a knowledge entry resolved',
    idempotent: true,
    description:
      'Mark an open entry solved once the fix is confirmed, with a note on what fixed it and a url (commit, pull request). Resolving a resolved entry changes nothing. ' +
      'On a project or global entry, secrets and personal data in the note or url stop it with a list of findings; then call again with redact: true (or acknowledge: [ids]).',
    inputSchema: toolInput({
      id: entryId,
      note: described(ResolveBody.properties.note, 'What fixed it'),
      url: sourceUrl,
      detail: detail('summary', 'How much of the entry to return'),
      ...sensitiveChoice,
    }),
    outputSchema: entryAnswer,
    run: async (args, ctx) => {
      const e = await ctx.api.resolve(await idArg(ctx, args.id), pick(args, ['note', 'url', 'redact', 'acknowledge'])).catch(explainRefusal)
      return entryAt(ctx, e.id, levelOf(args.detail, 'summary'), 'Resolved: ')
    },
  }),
  ...TRUST_TOOLS,
  ...CURATION_TOOLS,
  ...REVIEW_TOOLS,
  tool({
    name: 'publish_knowledge',
    title: 'Publish a knowledge entry more widely',
    description:
      'Let more people see an entry you wrote: private → project (when it has a project) → global. Without scope, the next wider one. ' +
      'An entry never narrows. ' +
      'Secrets and personal data in it stop the publish with a list of findings; then call again with redact: true (or acknowledge: [ids]).',
    inputSchema: toolInput({
      id: entryId,
      scope: described(PublishBody.properties.scope, 'The new, wider scope'),
      detail: detail('summary', 'How much of the entry to return'),
      ...sensitiveChoice,
    }),
    outputSchema: entryAnswer,
    run: async (args, ctx) => {
      const e = await ctx.api.publish(await idArg(ctx, args.id), pick(args, ['scope', 'redact', 'acknowledge'])).catch(explainRefusal)
      return entryAt(ctx, e.id, levelOf(args.detail, 'summary'), `Published (${e.scope}): `)
    },
  }),
  tool({
    name: 'fork_knowledge',
    title: 'Fork a knowledge entry',
    description:
      'Branch off an entry you can see to record a variant (another platform, a different root cause) without changing the original. The fork copies body, tags, url and thought chain; it is private until you publish it. Change it with update_knowledge.',
    inputSchema: toolInput({
      id: entryId,
      title: described(F.title, 'Default "<title> (fork)"', titleBound),
      scope: described(F.scope, 'Default private'),
      project_id: described(F.project_id, 'The project of the fork'),
      detail: detail('summary', 'How much of the fork to return'),
      ...sensitiveChoice,
    }),
    outputSchema: entryAnswer,
    run: async (args, ctx) => {
      const e = await ctx.api
        .fork(await idArg(ctx, args.id), pick(args, ['title', 'scope', 'project_id', 'redact', 'acknowledge']))
        .catch(explainRefusal)
      return entryAt(ctx, e.id, levelOf(args.detail, 'summary'), `Forked from ${e.forked_from} (${e.scope}): `)
    },
  }),
  tool({
    name: 'join_project',
    title: 'Join the project of a git repository',
    idempotent: true,
    description:
      "Join (or create) the kb project of a git repository by its remote (`git remote get-url origin`), so entries can be shared with the project's members. Returns the project id for project_id. Joining a project that exists may need a maintainer's approval: the answer then says the request is pending (not an error), and the project is yours once approved.",
    inputSchema: toolInput({
      remote: described(JoinProjectBody.properties.remote, 'A git remote URL, e.g. git@github.com:acme/api.git or github.com/acme/api'),
      name: described(JoinProjectBody.properties.name, 'A name for a new project (default the repository name)'),
      invitation: described(JoinProjectBody.properties.invitation!, "An invitation link's token (kbinv_…) the person gave you, if any"),
    }),
    outputSchema: {
      type: 'object',
      required: ['project'],
      properties: {
        project: {
          type: 'object',
          required: ['id', 'name'],
          properties: {
            id: {type: 'string'},
            name: {type: 'string'},
            remote: {type: 'string'},
            created_at: {type: 'string'},
            role: {type: 'string'},
          },
        },
        created: {type: 'boolean'},
        request: {
          type: 'object',
          description: 'Present when the join waits for a maintainer: the pending request',
          properties: {id: {type: 'string'}, status: {type: 'string'}, created_at: {type: 'string'}},
        },
      },
    },
    run: async (args, ctx) => {
      const r = await ctx.api.joinProject(pick(args, ['remote', 'name', 'invitation']) as {remote: string})
      if ('request' in r) {
        return {
          structured: {project: r.project, request: r.request},
          text:
            `Requested to join project ${r.project.name} (id ${r.project.id}): the request is pending, and a maintainer of the project must approve it ` +
            `(kb project requests / kb project approve). Until then you are not a member: its entries are not visible and project_id ${r.project.id} ` +
            'cannot be used. Tell the person; join_project again once approved.',
        }
      }
      return {
        structured: {project: r.project, created: r.created},
        text: `${r.created ? 'Created' : 'Joined'} project ${r.project.name} (${r.project.remote}), id ${r.project.id}, role ${r.project.role}.`,
      }
    },
  }),
]
