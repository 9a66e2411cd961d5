/**
 * @module Who is making a request, as established by authentication.
 */
import type {PrincipalRecord, Viewer} from '../store/store.js'

export interface Caller {
  principal: PrincipalRecord
  /** The credential used: an API key or an OAuth access token, and the project it is bound to. */
  credential: {
    kind: 'api_key' | 'oauth'
    id: string
    projectId: string | null
    /** The API key's name (history's `client`, docs/api.md "History"). */
    name?: string
    /** The OAuth client the token was issued to; its name is read when a change is recorded. */
    clientId?: string
  }
  /** What the client said it is (`Kb-Via: mcp | hook`), for the history of what it changes. */
  via?: 'mcp' | 'hook'
}

/**
 * Whether the caller holds the owner's powers (keys for others, backup, export of everything, import in
 * others' names, moderation). They come with an API key only: an OAuth grant of the owner acts as a
 * member (docs/security.md).
 */
export function isOwner(caller: Caller): boolean {
  return caller.principal.role === 'owner' && caller.credential.kind === 'api_key'
}

/** What the store needs to apply visibility to a read: who is reading. */
export function viewerOf(caller: Caller): Viewer {
  return {principalId: caller.principal.id}
}
