/**
 * @module Whose a queued write is (docs/cli.md, "Offline writes"): the credential that queued it, named by a
 * tag that does not reveal it — 16 hex digits of the SHA-256 of an API key, or the OAuth client a login
 * registered (its access token changes at every refresh, the grant behind it does not). `kb sync` sends an
 * item only under the credential that queued it; under another it is held, kept and listed.
 * SHA-256 in plain JavaScript: `node:crypto` costs milliseconds to load (docs/performance.md).
 */
import {sha256} from '../daemon/hmac-sha256.js'

/** What the tag is computed from: the credential in use (src/cli/credentials). */
export interface CredentialLike {
  key: string | null
  kind: string | null
  oauth?: {client_id: string; issuer: string}
}

export function principalTag(c: CredentialLike | undefined): string {
  if (!c || c.key === null) return 'none'
  if (c.kind === 'oauth' && c.oauth)
    return `oauth:${hex(sha256(new TextEncoder().encode(`${c.oauth.issuer}\u0000${c.oauth.client_id}`))).slice(0, 16)}`
  return `key:${hex(sha256(new TextEncoder().encode(c.key))).slice(0, 16)}`
}

const hex = (bytes: Uint8Array): string => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')
