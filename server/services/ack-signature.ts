/**
 * @module Signed acknowledgement records (docs/security.md, "Safe publish"): each record the server writes
 * ends with `Signed: <hex>`, an HMAC-SHA256 under a secret kept in the store (`server_secrets`, the same for
 * every daemon on it) over the entry id, the audience (scope and project) and the finding ids the record
 * names. An import honours a record only when the signature holds for the entry and the audience of the line
 * being imported: a record written by hand, copied to another entry, or carried by an export edited to a
 * wider scope acknowledges nothing, and a record from another server is asked again.
 */
import {createHmac, timingSafeEqual} from 'node:crypto'
import type {Scope} from '../../src/shared/types.js'
import type {Store} from '../store/store.js'

/** How a signed record's last line begins. */
export const SIGNATURE_HEAD = 'Signed: '
/** Characters the signature line adds to a record (a newline, the head, 32 hex digits). */
export const SIGNATURE_LINE_LENGTH = 1 + SIGNATURE_HEAD.length + 32

/** What a record is signed for. */
export interface AckSigner {
  key: Buffer
  entryId: string
  scope: Scope
  projectId: string | null
}

const keys = new WeakMap<object, Promise<Buffer>>()

/** The signer of records on one entry for one audience; the key is read from the store once per store. */
export async function ackSigner(
  store: Pick<Store, 'serverSecret'>,
  entryId: string,
  scope: Scope,
  projectId: string | null,
): Promise<AckSigner> {
  let key = keys.get(store)
  if (!key) {
    key = store.serverSecret('acknowledgements').then((hex) => Buffer.from(hex, 'hex'))
    keys.set(store, key)
  }
  return {key: await key, entryId, scope, projectId}
}

export function signIds(s: AckSigner, ids: string[]): string {
  const message = [s.entryId, s.scope, s.projectId ?? '', ...ids].join('\u0000')
  return createHmac('sha256', s.key).update(message).digest('hex').slice(0, 32)
}

/** Whether a record's signature holds for the ids it names, on this entry and for this audience. */
export function signatureHolds(s: AckSigner, ids: string[], signature: string): boolean {
  const want = Buffer.from(signIds(s, ids))
  const got = Buffer.from(signature)
  return got.length === want.length && timingSafeEqual(got, want)
}
