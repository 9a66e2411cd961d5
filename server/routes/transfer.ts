/**
 * @module /export, /import and /backup: moving a knowledge base out and in (JSON Lines) and taking a
 * consistent copy of the live store.
 */
import {createReadStream} from 'node:fs'
import {Readable} from 'node:stream'
import {Type} from '@sinclair/typebox'
import {KbError} from '../../src/shared/errors.js'
import {ImportReportSchema} from '../../src/shared/transfer-schemas.js'
import {operation} from '../http/operation.js'
import type {RouteDef} from '../http/route.js'
import {IMPORT_BODY_LIMIT, tooLarge} from '../services/transfer/format.js'
import type {TransferService} from '../services/transfer/service.js'
import {errorResponses} from './common.js'

const NDJSON = 'application/x-ndjson'

export function transferRoutes(transfer: TransferService): RouteDef[] {
  const tags = ['transfer']
  return [
    operation('exportAll', {
      tags,
      auth: true,
      summary: 'Export what the caller may see (the owner: everything) as JSON Lines',
      description:
        'A header line {"kind":"kb-export","version":1,…}, then one line per project, then one per entry with its comments, thought chain, resolution and lineage.',
      responses: {200: {description: 'JSON Lines', schema: Type.String(), contentType: NDJSON}, ...errorResponses(400, 401, 404)},
      handler: async ({caller, query, reply}) => {
        const lines = transfer.exportLines(caller, query)
        // The first line is produced before answering, so a refused request is still a problem, not a 200.
        const first = await lines.next()
        const stream = Readable.from(
          (async function* () {
            if (!first.done) yield first.value
            yield* lines
          })(),
        )
        const day = new Date().toISOString().slice(0, 10)
        return reply.type(NDJSON).header('Content-Disposition', `attachment; filename="kb-export-${day}.jsonl"`).send(stream)
      },
    }),
    operation('importAll', {
      tags,
      auth: true,
      summary: 'Import an export: every line validated, then all applied in one transaction or none',
      description: `Body: ${NDJSON}, up to 512 MiB, streamed. Ids are kept, so importing a file twice changes nothing. Any rejected line means nothing is applied; the report lists each with its line number.`,
      responses: {200: {description: 'The report', schema: ImportReportSchema}, ...errorResponses(400, 401, 413, 415)},
      handler: async ({caller, query, req}) => {
        const body = req.body
        if (!(body instanceof Readable))
          throw new KbError('unsupported_media_type', `send the export as the body with Content-Type: ${NDJSON}`)
        // A declared length over the limit is refused before reading a byte of it.
        if (Number(req.headers['content-length'] ?? 0) > IMPORT_BODY_LIMIT) throw tooLarge()
        const sensitive = {redact: query.redact ?? false, acknowledge: query.acknowledge?.split(',') ?? []}
        return transfer.import(caller, body, {onConflict: query.on_conflict ?? 'skip', dryRun: query.dry_run ?? false, sensitive})
      },
    }),
    operation('backupStore', {
      tags,
      auth: true,
      summary: "A consistent copy of the whole live store (owner only), taken with SQLite's online backup",
      description: 'A team server on PostgreSQL answers 409: back its database up with pg_dump or a base backup (docs/team-server.md).',
      responses: {
        200: {description: 'The store file', schema: Type.String({format: 'binary'}), contentType: 'application/vnd.sqlite3'},
        ...errorResponses(401, 403, 409),
      },
      handler: async ({caller, reply}) => {
        const snapshot = await transfer.snapshot(caller)
        const stream = createReadStream(snapshot.path)
        // Deleted once sent, or once the client went away; the open stream keeps reading a removed file fine.
        stream.once('close', () => void snapshot.release())
        const stamp = new Date().toISOString().replaceAll(':', '').slice(0, 15)
        return reply
          .type(snapshot.contentType)
          .header('Content-Length', String(snapshot.bytes))
          .header('Content-Disposition', `attachment; filename="kb-backup-${stamp}.sqlite"`)
          .send(stream)
      },
    }),
  ]
}
