/**
 * @module The SQLite driver's `Store.idempotency`: the contract on a fresh file per test, with a second
 * connection to the same file standing for another daemon.
 */
import {rmSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll} from 'vitest'
import {openSqliteStore} from '../../../server/store/sqlite.js'
import {tempDir} from '../../helpers/daemon.js'
import {runIdempotencyContract} from './idempotency-contract.js'

const dir = tempDir('kb-idem-store-')
let n = 0
let last = ''
afterAll(() => {
  rmSync(dir, {recursive: true, force: true})
})

runIdempotencyContract(
  'sqlite',
  async () => openSqliteStore({path: (last = join(dir, `idem-${n++}.sqlite`))}),
  async () => openSqliteStore({path: last}),
)
