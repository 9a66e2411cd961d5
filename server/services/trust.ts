/**
 * @module Trust in an entry (docs/api.md, "Anchors, freshness, verify and flags"): anchors as a create or an edit
 * sets them, verify, flags and anchor checks. Any principal that can see an entry may verify, flag or report a
 * check; none of these is a content edit, so neither `version` nor `updated_at` moves (Store.updateTrust).
 */
import type {AnchorCheckBody, AnchorIn, FlagBody, VerifyBody} from '../../src/shared/schemas.js'
import type {Anchor, EntryFull} from '../../src/shared/types.js'
import {nowIso, uuidv7} from '../lib/ids.js'
import type {CommentRow, EntryRow, Store, TrustChange} from '../store/store.js'
import type {Caller} from './context.js'
import type {KnowledgeService} from './knowledge.js'
import {clearFields} from './safe-publish.js'
import {actorOf, record} from './history.js'
import {FieldErrors, lowerUuid} from './validate.js'
import {entryNotFound} from './not-found.js'

/** An anchor's identity: path, lines and symbol (docs/api.md, "Anchors"). */
const keyOf = (a: {path: string; lines?: string | null; symbol?: string | null}): string =>
  JSON.stringify([a.path, a.lines ?? null, a.symbol ?? null])

/**
 * Anchors as sent on create or PATCH, stored: `lines` a ≤ b (else 422), duplicates collapsed, state `current` when
 * both commit and hash are given, else `unknown`. An anchor equal to one the entry has keeps what its checks found
 * while its commit and hash are unchanged.
 */
export function anchorsFrom(input: AnchorIn[], existing: Anchor[], errors: FieldErrors): Anchor[] {
  const before = new Map(existing.map((a) => [keyOf(a), a]))
  const out = new Map<string, Anchor>()
  input.forEach((a, i) => {
    if (a.lines) {
      const [from, to] = a.lines.split('-').map(Number) as [number, number]
      if (from > to) errors.add(`anchors/${i}/lines`, `must be a-b with a ≤ b (got ${a.lines})`)
    }
    const key = keyOf(a)
    if (out.has(key)) return
    const commit = a.commit ?? null
    const hash = a.hash ?? null
    const old = before.get(key)
    if (old && old.commit === commit && old.hash === hash) {
      out.set(key, old)
      return
    }
    out.set(key, {
      path: a.path,
      lines: a.lines ?? null,
      symbol: a.symbol ?? null,
      commit,
      hash,
      state: commit !== null && hash !== null ? 'current' : 'unknown',
      moved_to: null,
      checked_at: null,
      checked_commit: null,
    })
  })
  return [...out.values()]
}

export class TrustService {
  constructor(
    private readonly store: Store,
    private readonly knowledge: KnowledgeService,
  ) {}

  /** A note shown to the entry's readers is cleared as a comment is (docs/api.md, "Safe publish"); the body has no redact choice. */
  private async clearNote(caller: Caller, e: EntryRow, note: string, action: string): Promise<void> {
    if (e.scope === 'private') return
    await clearFields(
      [{field: 'note', text: note}],
      {},
      {action: `${action} an entry in ${e.scope} scope`, status: 422, entryId: e.id, caller},
    )
  }

  private async apply(caller: Caller, e: EntryRow, decide: (e: EntryRow) => TrustChange): Promise<{entry: EntryRow; replaced: boolean}> {
    const outcome = await this.store.updateTrust(e.id, decide)
    if (!outcome) throw entryNotFound(e.id)
    return outcome
  }

  async verify(caller: Caller, id: string, input: VerifyBody): Promise<EntryFull> {
    const e = await this.knowledge.visible(caller, id)
    const note = input.note?.trim() ? input.note : null
    if (note !== null) await this.clearNote(caller, e, note, 'verifying')
    const at = nowIso()
    const sent = new Map((input.anchors ?? []).map((a) => [keyOf(a), a]))
    const actor = await actorOf(this.store, caller)
    const rebased = e.anchors.filter((a) => sent.has(keyOf(a))).length
    let {entry} = await this.apply(caller, e, (current) => ({
      history: [record(actor, e.id, 'verified', rebased > 0 ? {anchors: `${rebased} re-based`} : {}, note, at)],
      // Only anchors the entry has are re-based; others sent are ignored (adding one is an edit).
      anchors: current.anchors.map((a) => {
        const s = sent.get(keyOf(a))
        if (!s) return a
        const commit = s.commit ?? a.commit
        return {...a, commit, hash: s.hash ?? a.hash, state: 'current', moved_to: null, checked_at: at, checked_commit: commit}
      }),
      verified: {by: {id: caller.principal.id, name: caller.principal.name}, at},
      withdraw: caller.principal.id,
    }))
    if (note !== null) {
      // Readers see the note as a comment (which, as any comment, moves `updated_at` and `version`).
      const comment: CommentRow = {
        id: uuidv7(),
        entry_id: e.id,
        body: `Verified: ${note}`,
        type: 'note',
        author_id: caller.principal.id,
        created_at: nowIso(),
      }
      const added = await this.store.addComment(comment)
      if (added) entry = added.entry
    }
    return this.knowledge.full(caller, entry)
  }

  /** Opens the caller's flag or replaces it; `created` is false for a replacement (200, not 201). */
  async flag(caller: Caller, id: string, input: FlagBody): Promise<{entry: EntryFull; created: boolean}> {
    const e = await this.knowledge.visible(caller, id)
    const errors = new FieldErrors()
    let duplicateOf: string | null = null
    if (input.duplicate_of !== undefined && input.duplicate_of !== null) {
      duplicateOf = lowerUuid(input.duplicate_of)
      if (input.reason !== 'duplicate') errors.add('duplicate_of', 'only with reason "duplicate"')
      else if (duplicateOf === e.id) errors.add('duplicate_of', 'an entry is not a duplicate of itself')
      else {
        const other = await this.store.getEntry(duplicateOf)
        if (!other || !(await this.knowledge.canSee(caller, other))) errors.add('duplicate_of', `no entry ${duplicateOf} that you can see`)
      }
    }
    errors.throwIfAny()
    const note = input.note?.trim() ? input.note : null
    if (note !== null) await this.clearNote(caller, e, note, 'flagging')
    const flag = {
      entry_id: e.id,
      principal_id: caller.principal.id,
      reason: input.reason,
      note,
      duplicate_of: duplicateOf,
      created_at: nowIso(),
    }
    const actor = await actorOf(this.store, caller)
    const history = [record(actor, e.id, 'flagged', {reason: input.reason}, note, flag.created_at)]
    const outcome = await this.apply(caller, e, () => ({flag, history}))
    return {entry: await this.knowledge.full(caller, outcome.entry), created: !outcome.replaced}
  }

  /** Withdraws the caller's open flag; none open answers the entry as it is. */
  async withdrawFlag(caller: Caller, id: string): Promise<EntryFull> {
    const e = await this.knowledge.visible(caller, id)
    const actor = await actorOf(this.store, caller)
    // Recorded only when the caller had an open flag (a withdrawal racing this one records nothing worse than a repeat).
    const had = (await this.store.listFlags(e.id)).find((f) => f.principal_id === caller.principal.id)
    const history = had ? [record(actor, e.id, 'unflagged', {reason: had.reason})] : []
    const outcome = await this.apply(caller, e, () => ({withdraw: caller.principal.id, history}))
    return this.knowledge.full(caller, outcome.entry)
  }

  /**
   * What a checkout found of the anchors: each result matched to an anchor by path, lines and symbol (unmatched
   * ones ignored). `moved`: path and lines follow; `current`: the hash may be updated; `changed`/`deleted`: the
   * hash is kept (it names the text the entry was written against).
   */
  async checkAnchors(caller: Caller, id: string, input: AnchorCheckBody): Promise<EntryFull> {
    const e = await this.knowledge.visible(caller, id)
    const errors = new FieldErrors()
    input.results.forEach((r, i) => {
      for (const [lines, path] of [
        [r.lines, `results/${i}/lines`],
        [r.moved_to?.lines, `results/${i}/moved_to/lines`],
      ] as const) {
        if (!lines) continue
        const [from, to] = lines.split('-').map(Number) as [number, number]
        if (from > to) errors.add(path, `must be a-b with a ≤ b (got ${lines})`)
      }
      if (r.state === 'moved' && !r.moved_to) errors.add(`results/${i}/moved_to`, 'required when state is "moved"')
    })
    errors.throwIfAny()
    const at = nowIso()
    const results = new Map(input.results.map((r) => [keyOf(r), r]))
    const actor = await actorOf(this.store, caller)
    const states = new Map<string, number>()
    for (const a of e.anchors) {
      const r = results.get(keyOf(a))
      if (r) states.set(r.state, (states.get(r.state) ?? 0) + 1)
    }
    const changes = Object.fromEntries([...states].map(([state, n]) => [state, String(n)]))
    const outcome = await this.apply(caller, e, (current) => ({
      history: [record(actor, e.id, 'anchors_checked', changes, `commit ${input.commit}`, at)],
      anchors: current.anchors.map((a): Anchor => {
        const r = results.get(keyOf(a))
        if (!r) return a
        const checked = {checked_at: at, checked_commit: input.commit}
        if (r.state === 'moved' && r.moved_to) {
          const to = {path: r.moved_to.path, lines: r.moved_to.lines ?? null}
          return {...a, ...to, hash: r.hash ?? a.hash, state: 'moved', moved_to: to, ...checked}
        }
        if (r.state === 'current') return {...a, hash: r.hash ?? a.hash, state: 'current', moved_to: null, ...checked}
        return {...a, state: r.state, moved_to: null, ...checked}
      }),
    }))
    return this.knowledge.full(caller, outcome.entry)
  }
}
