/**
 * @module The records behind the `Idempotency-Key` header (docs/api.md, "Idempotency"): one per principal and
 * key, claimed atomically before a request runs and completed with its answer, so a repeat is answered from
 * here instead of acting twice. An interface of its own (`Store.idempotency`) that each driver implements
 * apart; claiming is one atomic statement, so it holds across the daemons of a team server.
 */

/** What a repeat gets back: the first answer. */
export interface IdempotencyResponse {
  status: number
  /** The headers worth repeating: Content-Type, Location, ETag. */
  headers: Record<string, string>
  body: string
}

export interface IdempotencyRecord {
  principal_id: string
  key: string
  /** SHA-256 of the request (method, target, body); null until a streamed body has been read. */
  fingerprint: string | null
  /** Random, per claim: only the request holding it may complete or release the record. */
  claim: string
  /** Null while the first request is still running. */
  response: IdempotencyResponse | null
  created_at: string
  expires_at: string
}

export type IdempotencyClaim = Omit<IdempotencyRecord, 'response'>

export type ClaimOutcome = {claimed: true} | {claimed: false; record: IdempotencyRecord}

export interface IdempotencyStore {
  /**
   * Claims the key for a request about to run. It succeeds when the principal has no record for the key, when
   * the record there expired before `claim.created_at`, or when it is a claim never answered that was made
   * before `abandonedBefore` (its daemon died mid-request); otherwise it returns the record that holds the key.
   */
  claim(claim: IdempotencyClaim, abandonedBefore: string): Promise<ClaimOutcome>
  /** Stores the answer of a claimed request; false when the claim was taken over meanwhile (nothing stored). */
  complete(principalId: string, key: string, claim: string, fingerprint: string, response: IdempotencyResponse): Promise<boolean>
  /** Gives the key up, so a retry runs again (the request failed in a way worth retrying); only the claim's holder can. */
  release(principalId: string, key: string, claim: string): Promise<void>
  /** Deletes the records that expired before `now`; returns how many. */
  purgeExpired(now: string): Promise<number>
}
