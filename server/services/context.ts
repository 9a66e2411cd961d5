/**
 * @module Who is making a request, as established by authentication.
 */
import type {PrincipalRecord, Store} from '../store/store.js'

export interface Caller {
  principal: PrincipalRecord
  /** The credential used: an API key (or, later, an OAuth token) and the project it is bound to. */
  credential: {kind: 'api_key' | 'oauth'; id: string; projectId: string | null}
}

export interface Services {
  store: Store
  version: string
}

export function isOwner(caller: Caller): boolean {
  return caller.principal.role === 'owner'
}
