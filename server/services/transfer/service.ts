/**
 * @module Export, import and online backup (docs/api.md "Export, import and backup"), as the routes call them:
 * the format is format.ts, an export export.ts, an import import.ts.
 */
import type {Readable} from 'node:stream'
import {KbError} from '../../../src/shared/errors.js'
import type {Scope} from '../../../src/shared/types.js'
import type {Store} from '../../store/store.js'
import type {StoreSnapshot} from '../../store/transfer-store.js'
import {type Caller, isOwner} from '../context.js'
import {exportLines} from './export.js'
import {importBody, type ImportReport, type ImportRequest} from './import.js'

export class TransferService {
  constructor(
    private readonly store: Store,
    private readonly version: string,
    /** Writes what is counted in memory but not yet stored (usage counts), so a copy holds every read before it. */
    private readonly settle: () => Promise<void> = async () => {},
  ) {}

  /** The lines of an export of what the caller may see (everything, for the owner), each ending in a newline. */
  async *exportLines(caller: Caller, q: {scope?: Scope; project_id?: string}): AsyncGenerator<string> {
    await this.settle()
    yield* exportLines(this.store, this.version, caller, q)
  }

  /**
   * Reads an import body (JSON Lines) to the end, validating every line; then, if none was rejected,
   * applies them all in one transaction (a dry run rolls it back). Nothing is applied otherwise.
   */
  import(caller: Caller, body: Readable, request: ImportRequest): Promise<ImportReport> {
    return importBody(this.store, caller, body, request)
  }

  /** A consistent copy of the whole store, for the owner only. */
  async snapshot(caller: Caller): Promise<StoreSnapshot> {
    if (!isOwner(caller))
      throw new KbError('forbidden', 'only the owner may take a backup of the whole store; `kb export` exports what you may see')
    await this.settle()
    return this.store.transfer.snapshot()
  }
}
