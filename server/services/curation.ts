/**
 * @module Supersede and merge (docs/api.md, "Supersede and merge"): retiring an entry in favour of another one,
 * and carrying the retired entry's comments and tags over. The entry's author, the owner, or a maintainer of its
 * project may do either; a hidden entry is 404, a replacement the caller cannot see (or a cycle) 422.
 */
import {COMMENT_MAX, MERGE_COMMENTS_MAX, TAGS_MAX} from '../../src/shared/contract.js'
import {KbError} from '../../src/shared/errors.js'
import type {DismissSimilarBody, SimilarDismissed} from '../../src/shared/curation-schemas.js'
import type {MergeBody, SupersedeBody} from '../../src/shared/schemas.js'
import type {CommentType, EntryFull} from '../../src/shared/types.js'
import {summarize} from '../../src/shared/summary.js'
import {nowIso, uuidv7} from '../lib/ids.js'
import type {HistoryRow} from '../store/history-store.js'
import type {CommentRow, EntryRow, Store, UpdateStep} from '../store/store.js'
import {clearFields} from './safe-publish.js'
import {type Caller, isOwner} from './context.js'
import {actorOf, describeChanges, record} from './history.js'
import type {KnowledgeService} from './knowledge.js'
import {lowerUuid} from './validate.js'
import {entryNotFound} from './not-found.js'

/** Links followed when looking for a cycle: a chain longer than this is refused as if it were one. */
const CHAIN_MAX = 100
/** A merge whose entries change under it is read and tried again this many times, then refused (409). */
const MERGE_ATTEMPTS = 3

export class CurationService {
  constructor(
    private readonly store: Store,
    private readonly knowledge: KnowledgeService,
  ) {}

  /** The entry if the caller may retire it: its author, the owner, or a maintainer of its project; else 403 (404 when hidden). */
  async curatable(caller: Caller, id: string, action: string): Promise<EntryRow> {
    const e = await this.knowledge.visible(caller, id)
    if (e.author.id === caller.principal.id || isOwner(caller)) return e
    if (e.project_id !== null && (await this.store.getMemberRole(e.project_id, caller.principal.id)) === 'maintainer') return e
    throw new KbError(
      'forbidden',
      `only the author of entry ${e.id} (${e.author.name}), a maintainer of its project or the owner may ${action} it`,
    )
  }

  /** The replacement named by `by`: visible to the caller, not the entry itself, and not (through its own chain) replaced by it. */
  private async replacement(caller: Caller, old: EntryRow, by: string, path: string): Promise<EntryRow> {
    const invalid = (message: string): KbError => new KbError('validation_failed', `${path}: ${message}`, {errors: [{path, message}]})
    const id = lowerUuid(by)
    if (id === old.id) throw invalid('an entry cannot replace itself')
    const target = await this.store.getEntry(id)
    if (!target || !(await this.knowledge.canSee(caller, target))) throw invalid(`no entry ${id} that you can see`)
    let next = target.superseded_by
    for (let steps = 0; next !== null; steps++) {
      if (next === old.id || steps >= CHAIN_MAX)
        throw invalid(`${id} is itself replaced, through its chain, by ${old.id}: that would be a cycle`)
      next = (await this.store.getEntry(next))?.superseded_by ?? null
    }
    return target
  }

  /** `POST /knowledge/:id/supersede {by, note?}`: sets (or with `by: null` clears) `superseded_by`. Idempotent. */
  async supersede(caller: Caller, id: string, input: SupersedeBody): Promise<EntryFull> {
    const e = await this.curatable(caller, id, 'supersede')
    const by = input.by === null ? null : (await this.replacement(caller, e, input.by, 'by')).id
    return this.setSuperseded(caller, e, by, input.note)
  }

  private async setSuperseded(caller: Caller, e: EntryRow, by: string | null, note: string | undefined): Promise<EntryFull> {
    if (e.superseded_by === by && note === undefined) return this.knowledge.full(caller, e)
    const step = await this.supersedeStep(caller, e, by, note, nowIso())
    const outcome = await this.store.updateEntry(step.id, step.changes, step.options)
    if (!outcome.ok) throw entryNotFound(e.id)
    return this.knowledge.full(caller, outcome.entry)
  }

  /** The write of a supersede: the change, its note and its history record, one new version (docs/api.md, "History"). */
  private async supersedeStep(caller: Caller, e: EntryRow, by: string | null, note: string | undefined, at: string): Promise<UpdateStep> {
    // The summary item names the replacement: computed again with room for it (docs/api.md, "Summary form").
    const s = summarize(e.id, e.title, e.body, by)
    const comments =
      note === undefined
        ? []
        : await this.noteRows(caller, e, by === null ? `No longer superseded: ${note}` : `Superseded by ${by}: ${note}`, at)
    const history = [
      record(
        await actorOf(this.store, caller),
        e.id,
        'superseded',
        {superseded_by: `${e.superseded_by ?? 'none'} → ${by ?? 'none'}`},
        note ?? null,
        at,
      ),
    ]
    return {id: e.id, changes: {superseded_by: by, summary: s.body, summary_title: s.title}, options: {at, comments, history}}
  }

  /** The note as a comment row of the caller, cleared as a comment is on a shared entry (docs/api.md, "Safe publish"). */
  private async noteRows(caller: Caller, e: EntryRow, said: string, at: string): Promise<CommentRow[]> {
    let body = said
    const rows: CommentRow[] = []
    if (e.scope !== 'private') {
      const c = await clearFields(
        [{field: 'note', text: said}],
        {},
        {action: `noting a supersede on an entry in ${e.scope} scope`, status: 422, entryId: e.id, caller},
      )
      body = c.values.get('note') ?? said
      rows.push(...c.notes)
    }
    return [{id: uuidv7(), entry_id: e.id, body, type: 'note', author_id: caller.principal.id, created_at: at}, ...rows]
  }

  /**
   * `POST /knowledge/:id/similar/dismiss {other}`: a person says the pair is not the same knowledge, and it leaves the
   * review queue for good. Both entries must be visible (404 otherwise) and the caller may curate one of them (403).
   */
  async dismissSimilar(caller: Caller, id: string, input: DismissSimilarBody): Promise<SimilarDismissed> {
    const a = await this.knowledge.visible(caller, id)
    const b = await this.knowledge.visible(caller, lowerUuid(input.other))
    await this.curatable(caller, a.id, 'dismiss a similar pair of').catch(async (e: unknown) => {
      if (!(e instanceof KbError) || e.code !== 'forbidden') throw e
      await this.curatable(caller, b.id, 'dismiss a similar pair of')
    })
    const at = await this.store.history.dismissSimilar(a.id, b.id, caller.principal.id, nowIso())
    if (at === null) throw new KbError('not_found', `entries ${a.id} and ${b.id} were never found alike`)
    return {id: a.id, other: b.id, dismissed_at: at}
  }

  /**
   * `POST /knowledge/:id/merge {into, note?}`: the entry's comments copied onto `into` (each noting where it came
   * from), its tags added to those of `into`, a comment on `into` recording the merge, then the entry superseded by
   * `into`. The caller must be able to curate both. Everything is checked (the secret scan of each comment on a shared
   * entry included) before anything is written, then written in one transaction with both entries' history: a merge
   * happens whole or not at all. Answers `into` at full detail.
   */
  async merge(caller: Caller, id: string, input: MergeBody): Promise<EntryFull> {
    for (let attempt = 1; ; attempt++) {
      const a = await this.curatable(caller, id, 'merge')
      const b = await this.replacement(caller, a, input.into, 'into')
      await this.curatable(caller, b.id, 'merge into')
      const outcome = await this.store.updateEntries(await this.mergeSteps(caller, a, b, input.note))
      if (outcome.ok) return this.knowledge.full(caller, outcome.entries[0]!)
      if (outcome.reason === 'missing') throw entryNotFound(outcome.id)
      // One of the two changed between the reads above and the write (both versions are expected): read them again.
      if (attempt >= MERGE_ATTEMPTS)
        throw new KbError('conflict', `entry ${outcome.id} kept changing during the merge; nothing was merged, try again`)
    }
  }

  /** The two writes of a merge, `into` first, each expecting the version read (Store.updateEntries). */
  private async mergeSteps(caller: Caller, a: EntryRow, b: EntryRow, note: string | undefined): Promise<UpdateStep[]> {
    const at = nowIso()
    const rows: CommentRow[] = []
    const history: HistoryRow[] = []
    const add = async (body: string, type: CommentType): Promise<void> => {
      const c = await this.knowledge.commentRows(caller, b, {body: body.slice(0, COMMENT_MAX), type}, at)
      rows.push(...c.rows)
      history.push(...c.history)
    }
    for (const c of await this.store.listComments(a.id, {limit: MERGE_COMMENTS_MAX}))
      await add(`From merged entry ${a.id} ("${a.title}"), ${c.type} by ${c.author.name} at ${c.created_at}:\n\n${c.body}`, c.type)
    const tags = [...new Set([...b.tags, ...a.tags])].slice(0, TAGS_MAX)
    const changes = tags.length > b.tags.length ? {tags} : {}
    if (tags.length > b.tags.length)
      history.push(
        record(await actorOf(this.store, caller), b.id, 'edited', describeChanges(b, {tags}), `tags of merged entry ${a.id}`, at),
      )
    await add(`Merged entry ${a.id} ("${a.title}") into this one${note === undefined ? '' : `: ${note}`}`, 'note')
    const retire = await this.supersedeStep(
      caller,
      a,
      b.id,
      `merged into it, with its comments and tags${note === undefined ? '' : ` (${note})`}`,
      at,
    )
    return [
      {id: b.id, changes, options: {at, comments: rows, history, expectedVersion: b.version}},
      {...retire, options: {...retire.options, expectedVersion: a.version}},
    ]
  }
}
