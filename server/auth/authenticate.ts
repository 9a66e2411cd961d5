/**
 * @module Bearer authentication: API keys (and, with the OAuth issue, access tokens) to a Caller,
 * and the 401 challenge of docs/api.md, "Errors" that tells clients where to discover how to sign in.
 */
import {API_KEY_PREFIX} from '../../src/shared/contract.js'
import {KbError} from '../../src/shared/errors.js'
import {sha256Hex, nowIso} from '../lib/ids.js'
import type {Caller} from '../services/context.js'
import type {Store} from '../store/store.js'

const TOUCH_EVERY_MS = 60_000
const HASHES_MAX = 256

/** What a verifier may need to know about the request: the base URL it came to, for audience checks. */
export interface VerifyContext {
  /** The public base URL (ending in /api/v1) the request addressed. */
  baseUrl?: string
}

/** Another way to turn a bearer token into a caller (e.g. OAuth access tokens); null if not its kind. */
export type TokenVerifier = (token: string, context: VerifyContext) => Promise<Caller | null>

export class Authenticator {
  private readonly verifiers: TokenVerifier[] = []

  constructor(private readonly store: Store) {}

  addVerifier(verifier: TokenVerifier): void {
    this.verifiers.push(verifier)
  }

  /** The caller for an Authorization header; throws 401 with a challenge built by `challenge`. */
  async authenticate(
    header: string | undefined,
    challenge: (invalidToken: boolean) => string,
    context: VerifyContext = {},
  ): Promise<Caller> {
    if (header === undefined || header.trim() === '') {
      throw new KbError('unauthenticated', 'no credential: send Authorization: Bearer <API key>', {
        headers: {'WWW-Authenticate': challenge(false)},
      })
    }
    const m = /^Bearer +([\x21-\x7e]+) *$/i.exec(header)
    const caller = m ? await this.verify(m[1]!, context) : null
    if (!caller) {
      throw new KbError('unauthenticated', 'the credential is unknown, revoked or expired', {
        headers: {'WWW-Authenticate': challenge(true)},
      })
    }
    return caller
  }

  private async verify(token: string, context: VerifyContext): Promise<Caller | null> {
    if (token.startsWith(API_KEY_PREFIX)) return this.verifyApiKey(token)
    for (const v of this.verifiers) {
      const caller = await v(token, context)
      if (caller) return caller
    }
    return null
  }

  /**
   * The SHA-256 of recently presented keys: hashing is a few µs of every request. Only the hash is
   * remembered, never whether the key is valid, so revocation and expiry are checked on every request.
   */
  private readonly hashes = new Map<string, string>()

  private hashOf(token: string): string {
    let hash = this.hashes.get(token)
    if (hash === undefined) {
      hash = sha256Hex(token)
      if (this.hashes.size >= HASHES_MAX) this.hashes.delete(this.hashes.keys().next().value!)
      this.hashes.set(token, hash)
    }
    return hash
  }

  private async verifyApiKey(token: string): Promise<Caller | null> {
    const key = await this.store.findApiKeyByHash(this.hashOf(token))
    if (!key || key.revoked_at !== null) return null
    const now = Date.now()
    if (key.expires_at !== null && Date.parse(key.expires_at) <= now) return null
    const principal = await this.store.getPrincipal(key.principal_id)
    if (!principal) return null
    if (key.last_used_at === null || now - Date.parse(key.last_used_at) > TOUCH_EVERY_MS) await this.store.touchApiKey(key.id, nowIso())
    return {principal, credential: {kind: 'api_key', id: key.id, projectId: key.project_id, name: key.name}}
  }
}

export function bearerChallenge(resourceMetadataUrl: string, invalidToken: boolean): string {
  return `Bearer resource_metadata="${resourceMetadataUrl}"${invalidToken ? ', error="invalid_token"' : ''}`
}
