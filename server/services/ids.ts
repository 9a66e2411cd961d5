/**
 * @module Short ids (docs/api.md, "Short ids"): a typed reference — a whole id, the start of one, or the end of one —
 * read as the one entry the caller may see that it names. An entry the caller may not see is never a candidate.
 */
import {ID_CANDIDATES_MAX, ID_REF_SCAN} from '../../src/shared/contract.js'
import {KbError} from '../../src/shared/errors.js'
import type {IdCandidate, IdResolved} from '../../src/shared/id-schemas.js'
import {readIdRef, shortId} from '../../src/shared/short-id.js'
import type {Store} from '../store/store.js'
import {type Caller, viewerOf} from './context.js'
import type {KnowledgeService} from './knowledge.js'

export class IdService {
  constructor(
    private readonly store: Store,
    private readonly knowledge: KnowledgeService,
  ) {}

  /** The length short forms have now (the `Kb-Short-Id-Length` header). */
  async shortLength(): Promise<number> {
    return this.store.ids.shortLength()
  }

  /** The entry `typed` names: 404 when none the caller may see does, 409 `ambiguous_id` (with `candidates`) when several do. */
  async resolve(caller: Caller, typed: string): Promise<IdResolved> {
    const ref = readIdRef(typed)
    const length = await this.store.ids.shortLength()
    if ('id' in ref) {
      const e = await this.knowledge.visible(caller, ref.id)
      return {id: e.id, short_id: shortId(e.id, length)}
    }
    const {candidates, more} = await this.store.ids.match(viewerOf(caller), ref.hex, ID_REF_SCAN)
    const only = candidates[0]
    if (candidates.length === 1 && !more) return {id: only!.id, short_id: shortId(only!.id, length)}
    if (candidates.length === 0 && !more)
      throw new KbError('not_found', `no entry you can see has an id that starts or ends with ${ref.hex}`)
    const listed: IdCandidate[] = candidates
      .slice(0, ID_CANDIDATES_MAX)
      .map((c) => ({id: c.id, short_id: shortId(c.id, length), title: c.title}))
    const detail = more
      ? `${ref.hex} is the start or end of more than ${ID_REF_SCAN} ids; type more characters`
      : `${ref.hex} is the start or end of ${candidates.length > ID_CANDIDATES_MAX ? `more than ${ID_CANDIDATES_MAX}` : candidates.length} entries' ids; type more characters`
    throw new KbError('ambiguous_id', detail, {extra: {candidates: listed}})
  }
}
