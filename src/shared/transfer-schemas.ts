/**
 * @module The wire schemas of moving a knowledge base out and in (docs/api.md, "Export, import and backup"): the
 * export's and the import's query strings and the import's report.
 */
import {Type, type Static} from '@sinclair/typebox'
import {FINDING_ID_LIST_MAX, FINDING_ID_LIST_PATTERN, ON_CONFLICTS} from './contract.js'
import {oneOf, ScopeSchema, SimilarItemSchema, Uuid} from './schemas.js'

export const ExportQuery = Type.Object({scope: Type.Optional(ScopeSchema), project_id: Type.Optional(Uuid)})

export const ImportQuery = Type.Object({
  dry_run: Type.Optional(Type.Boolean({description: 'Check and count, change nothing'})),
  on_conflict: Type.Optional(oneOf(ON_CONFLICTS, 'What to do with a project or entry whose id exists: skip (default) or overwrite')),
  redact: Type.Optional(Type.Boolean({description: 'Redact findings in entries bound for a shared scope (docs/api.md, "Safe publish")'})),
  acknowledge: Type.Optional(
    Type.String({
      maxLength: FINDING_ID_LIST_MAX,
      pattern: FINDING_ID_LIST_PATTERN,
      description: 'Comma-separated finding ids to import as they are (recorded)',
    }),
  ),
})

export const ImportReportSchema = Type.Object({
  created: Type.Integer(),
  updated: Type.Integer(),
  skipped: Type.Integer(),
  unchanged: Type.Integer({
    description: 'Of the skipped entries, those already stored exactly as the file has them (not scanned, no history written)',
  }),
  principals_created: Type.Integer(),
  dry_run: Type.Boolean(),
  rejected: Type.Array(Type.Object({line: Type.Integer(), reason: Type.String()})),
  similar: Type.Optional(
    Type.Array(Type.Object({line: Type.Integer(), similar: Type.Array(SimilarItemSchema)}), {
      description: 'Imported entries (of the first 200 entry lines) that look like entries you could already see: a report, not a refusal',
    }),
  ),
})
export type ImportReport = Static<typeof ImportReportSchema>
