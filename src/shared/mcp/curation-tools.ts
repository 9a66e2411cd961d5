/**
 * @module The MCP tool of curation (docs/mcp.md, "Similar entries, supersede"): supersede_knowledge retires an entry
 * in favour of a better one (`POST /knowledge/:id/supersede`), for an agent asked to tidy the knowledge base.
 */
import {SupersedeBody} from '../schemas.js'
import {entryAt, idArg, levelOf, pick, tool, type ToolDef} from './tool-kit.js'
import {described, detail, entryAnswer, entryId, toolInput} from './tool-schemas.js'
import {IdRefSchema} from '../id-schemas.js'

const S = SupersedeBody.properties

export const CURATION_TOOLS: ToolDef[] = [
  tool({
    name: 'supersede_knowledge',
    title: 'Mark a knowledge entry replaced by a better one',
    idempotent: true,
    description:
      'Retire an entry that another one replaces (a newer fix, a fuller write-up of the same knowledge): it leaves searches, and whoever ' +
      "reads it is sent to the replacement. Only the entry's author, a maintainer of its project or the owner may. To add to an entry " +
      'instead, use comment_on_knowledge.',
    inputSchema: toolInput({
      id: entryId,
      by: described(IdRefSchema, 'The id of the entry that replaces it (one you can see), or at least 4 characters of its start or end'),
      note: described(S.note, 'Why, e.g. "fixed upstream in v3" (shown as a comment)'),
      detail: detail('summary', 'How much of the retired entry to return'),
    }),
    outputSchema: entryAnswer,
    run: async (args, ctx) => {
      const e = await ctx.api.supersede(await idArg(ctx, args.id), {by: await idArg(ctx, args.by), ...pick(args, ['note'])})
      return entryAt(ctx, e.id, levelOf(args.detail, 'summary'), `Superseded by ${e.superseded_by}: `)
    },
  }),
]
