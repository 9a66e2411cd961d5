/**
 * @module The MCP tools of trust (docs/mcp.md, "Freshness, verify and flag"): an agent that used an entry
 * says whether it held — verify_knowledge when its fix worked, flag_knowledge when it did not. Both call the
 * API's own endpoints (`POST /knowledge/:id/verify`, `POST /knowledge/:id/flags`, `DELETE …/flags/mine`).
 */
import {KbError} from '../errors.js'
import {FlagBody, VerifyBody} from '../schemas.js'
import {entryAt, idArg, levelOf, pick, str, tool, type ToolDef} from './tool-kit.js'
import {described, detail, entryAnswer, entryId, toolInput} from './tool-schemas.js'
import {Type} from '@sinclair/typebox'
import {IdRefSchema} from '../id-schemas.js'

const V = VerifyBody.properties
const F = FlagBody.properties

export const TRUST_TOOLS: ToolDef[] = [
  tool({
    name: 'verify_knowledge',
    title: 'Confirm a knowledge entry still holds',
    description:
      "Say an entry still holds: call it after you applied an entry's fix and it worked, or checked its claim against the code. " +
      'It counts as verified again (ranked higher) and your own flag on it is withdrawn. The note says what you checked.',
    inputSchema: toolInput({
      id: entryId,
      note: described(V.note, 'What you checked or applied, e.g. "the fix worked on Node 22" (shown as a comment)'),
      detail: detail('summary', 'How much of the entry to return'),
    }),
    outputSchema: entryAnswer,
    run: async (args, ctx) => {
      const e = await ctx.api.verify(await idArg(ctx, args.id), pick(args, ['note']))
      return entryAt(ctx, e.id, levelOf(args.detail, 'summary'), 'Verified: ')
    },
  }),
  tool({
    name: 'flag_knowledge',
    title: 'Flag a knowledge entry as not to be trusted',
    idempotent: true,
    description:
      'Warn the next reader: call it when you followed an entry and it did not work (reason incorrect), the code it describes changed ' +
      '(stale), it no longer applies (obsolete), or it repeats another entry (duplicate, with duplicate_of). One flag per caller: ' +
      'calling again replaces yours; withdraw: true takes it back. Say what is right with comment_on_knowledge (type correction).',
    inputSchema: toolInput({
      id: entryId,
      reason: Type.Optional(described(F.reason, 'Why: incorrect (it did not work), stale, obsolete or duplicate; not with withdraw')),
      note: described(F.note, 'What you saw, e.g. "the option was removed in v5"'),
      duplicate_of: Type.Optional(
        described(
          Type.Union([IdRefSchema, Type.Null()]),
          'With reason duplicate: the id of the entry it repeats, or at least 4 characters of its start or end',
        ),
      ),
      withdraw: Type.Optional(Type.Boolean({description: 'true withdraws your open flag instead (nothing else with it)'})),
      detail: detail('summary', 'How much of the entry to return'),
    }),
    outputSchema: entryAnswer,
    run: async (args, ctx) => {
      const id = await idArg(ctx, args.id)
      const level = levelOf(args.detail, 'summary')
      const given = Object.keys(pick(args, ['reason', 'note', 'duplicate_of']))
      if (args.withdraw === true) {
        if (given.length > 0) throw new KbError('validation_failed', `withdraw takes no ${given.join(', ')}: it only takes back your flag`)
        const e = await ctx.api.withdrawFlag(id)
        return entryAt(ctx, e.id, level, 'Flag withdrawn (if you had one): ')
      }
      if (args.reason === undefined)
        throw new KbError('validation_failed', 'give a reason (incorrect, stale, obsolete or duplicate), or withdraw: true')
      const body = pick(args, ['reason', 'note', 'duplicate_of']) as {reason: 'stale'; duplicate_of?: string | null}
      if (typeof body.duplicate_of === 'string') body.duplicate_of = await idArg(ctx, body.duplicate_of)
      const e = await ctx.api.flag(id, body)
      return entryAt(ctx, e.id, level, `Flagged ${str(args.reason)}: `)
    },
  }),
]
