/**
 * @module The MCP tool of curation (docs/mcp.md, "Tidying the knowledge base"): review_queue gives an agent asked to
 * tidy kb what a curator would look at first — stale, flagged, similar, unverified, superseded and unused entries, most used
 * first, each with why — through the API's own `GET /review`. The agent then acts with the other tools (verify_knowledge,
 * supersede_knowledge, flag_knowledge, update_knowledge, comment_on_knowledge).
 */
import {ReviewQuery} from '../curation-schemas.js'
import {tool, type ToolDef} from './tool-kit.js'
import {described, toolInput} from './tool-schemas.js'

const R = ReviewQuery.properties

export const REVIEW_TOOLS: ToolDef[] = [
  tool({
    name: 'review_queue',
    title: 'List the knowledge entries that need a curator',
    readOnly: true,
    description:
      'Use it when asked to tidy or curate the knowledge base. Returns counts (stale, flagged, similar, unverified, superseded, ' +
      'never_retrieved) and the entries to look at, most used first, each with why. Then: verify_knowledge what still holds, ' +
      'update_knowledge what is wrong, supersede_knowledge what another entry replaces (a duplicate), flag_knowledge (obsolete) ' +
      'what should go, comment_on_knowledge to explain. A similar entry names the other entry of its pair (similar_to): if both ' +
      'say the same, supersede_knowledge the weaker one by the other; if they differ, leave them (a person can dismiss the pair).',
    inputSchema: toolInput({
      project_id: described(R.project_id, 'Only this project (and global entries); default all you can see'),
      kind: described(R.kind, 'Only entries of this kind, e.g. flagged'),
      limit: described(R.limit, 'How many entries (1–100, default 20)'),
    }),
    outputSchema: {
      type: 'object',
      required: ['counts', 'items'],
      properties: {
        counts: {type: 'object'},
        items: {
          type: 'array',
          items: {type: 'object', required: ['id', 'title', 'reasons'], properties: {id: {type: 'string'}, title: {type: 'string'}}},
        },
      },
    },
    run: async (args, ctx) => {
      const page = await ctx.api.review({
        ...(typeof args.project_id === 'string' ? {project_id: args.project_id} : {}),
        ...(typeof args.kind === 'string' ? {kind: args.kind as 'stale'} : {}),
        ...(typeof args.limit === 'number' ? {limit: args.limit} : {}),
      })
      const items = page.items.map((i) => ({
        id: i.entry.id,
        title: i.entry.title,
        retrieved: i.entry.usage.retrieved,
        reasons: i.reasons.map((r) => `${r.kind}: ${r.detail}`),
        ...(i.reasons.some((r) => r.other) ? {similar_to: i.reasons.flatMap((r) => (r.other ? [r.other.id] : []))} : {}),
      }))
      const counts = Object.entries(page.counts)
        .map(([k, n]) => `${k} ${n}`)
        .join(', ')
      const text =
        items.length === 0
          ? `Nothing to review (${counts}).`
          : [`To review (${counts}), most used first:`, ...items.map((i) => `- ${i.id} — ${i.title} [${i.reasons.join('; ')}]`)].join('\n')
      return {structured: {counts: page.counts, items}, text}
    },
  }),
]
