/**
 * @module API keys: minted as `kb_` + 43 base62 characters, stored only as SHA-256, shown once.
 * Also the owner bootstrap: the first principal and its key, made when a store is initialised.
 */
import {API_KEY_PREFIX, KEY_PREFIX_CHARS} from '../../src/shared/contract.js'
import {KbError} from '../../src/shared/errors.js'
import type {CreateApiKeyBody} from '../../src/shared/schemas.js'
import type {ApiKeyRecord} from '../../src/shared/types.js'
import {nowIso, randomBase62, sha256Hex, uuidv7} from '../lib/ids.js'
import type {ApiKeyRow, PrincipalRecord, Store} from '../store/store.js'
import {type Caller, isOwner} from './context.js'
import {projectNotFound} from './not-found.js'

const DAY_MS = 86_400_000

function newApiKeySecret(): string {
  return API_KEY_PREFIX + randomBase62(43)
}

export class ApiKeyService {
  constructor(private readonly store: Store) {}

  /**
   * Creates the owner principal and its first key if the store has no principal yet; returns the secret. The
   * store does it atomically, so of several daemons starting on one empty database one creates the owner.
   */
  async bootstrapOwner(name = 'owner'): Promise<string | null> {
    if ((await this.store.countPrincipals()) > 0) return null
    const principal: PrincipalRecord = {id: uuidv7(), name, role: 'owner', created_at: nowIso()}
    const {key, row} = keyFor(principal, {name: 'owner bootstrap key'})
    return (await this.store.bootstrapOwner(principal, row)) ? key : null
  }

  /**
   * A new key for the store's owner unless `current` (the data directory's owner.key) is a live key of it:
   * a store restored from another data directory does not know that file's key (docs/operations.md).
   * Returns the new secret, or null when `current` works (or the store has no owner).
   */
  async reissueOwnerKey(current: string): Promise<string | null> {
    const live = current ? await this.store.findApiKeyByHash(sha256Hex(current)) : null
    const now = Date.now()
    if (live && live.revoked_at === null && (live.expires_at === null || Date.parse(live.expires_at) > now)) {
      if ((await this.store.getPrincipal(live.principal_id))?.role === 'owner') return null
    }
    // The owner principal is the one bootstrapOwner made; its name cannot change.
    const owner = await this.store.getPrincipalByName('owner')
    if (owner?.role !== 'owner') return null
    return (await this.mint(owner, {name: 'owner key re-issued at start'})).key
  }

  async create(caller: Caller, input: CreateApiKeyBody): Promise<ApiKeyRecord & {key: string}> {
    // A key outlives any grant; minting one would turn a revocable grant into permanent access.
    if (caller.credential.kind !== 'api_key')
      throw new KbError('forbidden', 'an OAuth access token cannot create API keys; use an API key (`kb api-key create` with your own key)')
    let principal = caller.principal
    if (input.principal !== undefined && input.principal !== caller.principal.name) {
      if (!isOwner(caller)) throw new KbError('forbidden', 'only the owner may create keys for other principals')
      principal = (await this.store.getPrincipalByName(input.principal)) ?? (await this.createPrincipal(input.principal))
    }
    let projectId: string | null = null
    if (input.project_id) {
      projectId = input.project_id.toLowerCase()
      const callerRole = await this.store.getMemberRole(projectId, caller.principal.id)
      if (callerRole === null) {
        throw projectNotFound(projectId, 'project_id')
      }
      // A key bound to a project is useless without membership: the owner's grant makes the principal a member.
      await this.store.addMember(projectId, principal.id, 'member', nowIso())
    }
    return this.mint(principal, {name: input.name, expiresInDays: input.expires_in_days ?? null, projectId})
  }

  private async createPrincipal(name: string): Promise<PrincipalRecord> {
    const p: PrincipalRecord = {id: uuidv7(), name, role: 'member', created_at: nowIso()}
    await this.store.insertPrincipal(p)
    return p
  }

  private async mint(principal: PrincipalRecord, o: KeyOptions): Promise<ApiKeyRecord & {key: string}> {
    const {key, row} = keyFor(principal, o)
    await this.store.insertApiKey(row)
    return {...toRecord(row, principal), key}
  }

  async list(caller: Caller): Promise<ApiKeyRecord[]> {
    const rows = await this.store.listApiKeys(caller.principal.id)
    return rows.map((r) => toRecord(r, caller.principal))
  }

  /** Revokes one of the caller's keys, or with no id the key that made the request. */
  async revoke(caller: Caller, id: string | undefined): Promise<void> {
    const keyId = id?.toLowerCase() ?? (caller.credential.kind === 'api_key' ? caller.credential.id : undefined)
    if (keyId === undefined)
      throw new KbError('validation_failed', 'id: required when the request is not made with an API key', {
        errors: [{path: 'id', message: 'required'}],
      })
    const done = await this.store.revokeApiKey(keyId, caller.principal.id, nowIso())
    if (!done) throw new KbError('not_found', `API key ${keyId} does not exist or is not yours`)
  }
}

interface KeyOptions {
  name?: string
  expiresInDays?: number | null
  projectId?: string | null
}

/** A new key's secret and the row that stores it. */
function keyFor(principal: PrincipalRecord, o: KeyOptions): {key: string; row: ApiKeyRow} {
  const key = newApiKeySecret()
  const now = Date.now()
  const row: ApiKeyRow = {
    id: uuidv7(now),
    principal_id: principal.id,
    name: o.name?.trim() || 'default',
    prefix: key.slice(0, KEY_PREFIX_CHARS),
    hash: sha256Hex(key),
    project_id: o.projectId ?? null,
    created_at: new Date(now).toISOString(),
    expires_at: o.expiresInDays ? new Date(now + o.expiresInDays * DAY_MS).toISOString() : null,
    last_used_at: null,
    revoked_at: null,
  }
  return {key, row}
}

function toRecord(r: ApiKeyRow, principal: PrincipalRecord): ApiKeyRecord {
  return {
    id: r.id,
    name: r.name,
    prefix: r.prefix,
    created_at: r.created_at,
    expires_at: r.expires_at,
    last_used_at: r.last_used_at,
    project_id: r.project_id,
    principal: {id: principal.id, name: principal.name},
  }
}
