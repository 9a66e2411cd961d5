/**
 * @module The wire schemas of safe publish (docs/api.md, "Safe publish"): a finding, a line of the redaction
 * diff, the publish preview, and the problem body that carries them (RFC 9457 plus findings).
 */
import {Type, type Static} from '@sinclair/typebox'
import {FINDING_CATEGORIES, FINDINGS_MAX} from './contract.js'
import {oneOf, ScopeSchema} from './schemas.js'

export const FindingSchema = Type.Object(
  {
    id: Type.String({description: 'Stable while the entry is unchanged: a hash of field, kind, position and the text found'}),
    field: Type.String({
      description:
        'title, body, url, tags/<i>, thought_chain/<i>/thought, resolution/note, resolution/url, comments/<comment id>/body, or comment (the comment being added)',
    }),
    kind: Type.String({description: 'The rule that found it, e.g. aws-access-token, github-pat, private-key, email (docs/security.md)'}),
    label: Type.String({description: 'The kind in words'}),
    category: oneOf(FINDING_CATEGORIES),
    start: Type.Integer({description: 'Offset in the field (UTF-16 code units, as JavaScript counts)'}),
    end: Type.Integer({description: 'Offset just past it'}),
    line: Type.Integer({description: 'Line in the field, from 1'}),
    column: Type.Integer({description: 'Column in that line, from 1'}),
    excerpt: Type.String({description: 'The finding in its context with every finding masked: never the secret itself'}),
  },
  {$id: 'Finding'},
)
export type Finding = Static<typeof FindingSchema>

export const RedactionLineSchema = Type.Object(
  {
    field: Type.String(),
    line: Type.Integer(),
    before: Type.String({description: 'The line as it is, every finding masked'}),
    after: Type.Union([Type.String(), Type.Null()], {
      description: 'The line as redaction would leave it; null when the field goes (a tag, a URL no longer valid)',
    }),
  },
  {$id: 'RedactionLine'},
)
export type RedactionLine = Static<typeof RedactionLineSchema>

const sensitiveReport = {
  findings: Type.Array(Type.Ref('Finding'), {description: `Up to ${FINDINGS_MAX}, in field and text order`}),
  findings_total: Type.Integer({description: 'How many there are in all'}),
  diff: Type.Array(Type.Ref('RedactionLine'), {description: 'What redact: true would change, line by line'}),
}

export const PublishPreviewSchema = Type.Object(
  {
    scope: ScopeSchema,
    ...sensitiveReport,
    redacted: Type.Record(Type.String(), Type.Union([Type.String(), Type.Null()]), {
      description: 'The redacted value of every field redaction changes, by field (null: the field is removed, e.g. a tag)',
    }),
  },
  {$id: 'PublishPreview', description: 'What publishing to `scope` would expose, and what redaction would make of it; nothing is changed'},
)
export type PublishPreview = Omit<Static<typeof PublishPreviewSchema>, 'findings' | 'diff'> & {findings: Finding[]; diff: RedactionLine[]}

export const ProblemSchema = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Integer(),
    code: Type.String(),
    detail: Type.Optional(Type.String()),
    errors: Type.Optional(Type.Array(Type.Object({path: Type.String(), message: Type.String()}))),
    findings: Type.Optional(sensitiveReport.findings),
    findings_total: Type.Optional(sensitiveReport.findings_total),
    diff: Type.Optional(sensitiveReport.diff),
  },
  {$id: 'Problem', description: 'RFC 9457; a sensitive_content problem adds findings, findings_total and diff'},
)
