/**
 * @module Safe publish on the command line (docs/cli.md, "Safe publish"): a write the server refuses with
 * sensitive_content shows its findings and what redaction would change (on stderr, through safeText: the
 * excerpts are entry text). On a terminal the person then chooses to redact, to keep them as written
 * (recorded on the entry) or to stop; anywhere else the command fails with exit 5, naming --redact and
 * --acknowledge.
 */
import {Flags} from '@oclif/core'
import {FINDING_ID_PATTERN} from '../shared/contract.js'
import {KbError} from '../shared/errors.js'
import type {SensitiveReport} from '../shared/types.js'
import {choose, interactive} from './input.js'
import {bold, dim, fitWidth, green, red, renderTable, type OutputMode} from './output/format.js'
import {safeText} from './output/safe-text.js'

export const sensitiveFlags = {
  redact: Flags.boolean({description: 'replace secrets and personal data found with [REDACTED:<kind>] (docs/cli.md, "Safe publish")'}),
  acknowledge: Flags.string({
    description: 'finding ids to keep as written, comma-separated or repeated; recorded on the entry',
    multiple: true,
    helpValue: '<ids>',
  }),
}

export interface SensitiveChoice {
  redact?: boolean
  acknowledge?: string[]
}

const FINDING_ID = new RegExp(FINDING_ID_PATTERN)

/** The choice the flags make; a malformed id is a usage error. */
export function choiceFrom(flags: {redact?: boolean; acknowledge?: string[]}): SensitiveChoice {
  const ids = (flags.acknowledge ?? [])
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter((v) => v !== '')
  const bad = ids.find((id) => !FINDING_ID.test(id))
  if (bad !== undefined) {
    throw new KbError(
      'usage',
      `--acknowledge takes finding ids (16 hex digits, as listed when a write is refused), not "${safeText(bad, {newlines: false})}"`,
    )
  }
  return {...(flags.redact ? {redact: true} : {}), ...(ids.length > 0 ? {acknowledge: ids} : {})}
}

function reportOf(e: KbError): SensitiveReport {
  const x = e.extra ?? {}
  return {
    findings: Array.isArray(x.findings) ? x.findings : [],
    findings_total: typeof x.findings_total === 'number' ? x.findings_total : 0,
    diff: Array.isArray(x.diff) ? x.diff : [],
  }
}

const one = (s: string): string => safeText(s, {newlines: false, tabs: false})

/** The findings and the redaction diff, for people. */
export function renderReport(r: SensitiveReport, mode: OutputMode): string {
  const out = [bold(mode, `${r.findings_total === 1 ? '1 finding' : `${r.findings_total} findings`} of secrets or personal data:`)]
  const where = r.findings.map((f) => `${f.field}, line ${f.line}`)
  if (mode.tty) {
    // On a terminal, a table that fits it: the excerpt is cut first (docs/cli.md, "Tables").
    const table = renderTable(
      [{header: 'ID', color: dim}, {header: 'KIND', cut: true}, {header: 'WHERE'}, {header: 'EXCERPT', flex: true}],
      r.findings.map((f, i) => [f.id, f.label, where[i], f.excerpt]),
      mode,
      {header: false, indent: 2},
    )
    out.push(table.trimEnd())
  } else {
    const labelWidth = Math.max(...r.findings.map((f) => f.label.length))
    const whereWidth = Math.max(...where.map((w) => w.length))
    r.findings.forEach((f, i) => out.push(`  ${f.id}  ${f.label.padEnd(labelWidth)}  ${where[i]!.padEnd(whereWidth)}  ${one(f.excerpt)}`))
  }
  if (r.findings_total > r.findings.length) out.push(`  … and ${r.findings_total - r.findings.length} more`)
  if (r.diff.length > 0) {
    out.push('', bold(mode, 'Redaction would change:'))
    for (const d of r.diff) {
      const after = d.after === null ? '+ (removed)' : `+ ${one(d.after)}`
      // A changed line is cut to the terminal's width rather than wrapped; piped, it is whole.
      const fit = (s: string): string => (mode.tty ? fitWidth(s, mode.width - 2) : s)
      out.push(`  ${dim(mode, `${d.field}, line ${d.line}`)}`, `  ${red(mode, fit(`- ${one(d.before)}`))}`, `  ${green(mode, fit(after))}`)
    }
  }
  return `${out.join('\n')}\n`
}

/** The refusal as the command reports it: what to run instead, with the ids to acknowledge. */
function refusal(e: KbError, r: SensitiveReport, what: string): KbError {
  const ids = r.findings.map((f) => f.id).join(',')
  const it = r.findings_total === 1 ? 'it' : 'them'
  const keep = r.findings_total > r.findings.length ? '' : `, or --acknowledge ${ids} to keep ${it} as written (recorded on the entry)`
  return new KbError(
    'sensitive_content',
    `${what} would expose ${r.findings_total === 1 ? 'a secret or personal data' : `${r.findings_total} secrets or pieces of personal data`}; ` +
      `re-run with --redact to replace ${it} with [REDACTED:<kind>]${keep}`,
    {status: e.status, ...(e.extra ? {extra: e.extra} : {})},
  )
}

export interface ClearOptions {
  mode: OutputMode
  /** --json: no report on stderr, no question; the refusal carries the findings. */
  json: boolean
  /** "publishing kb-entry 0193… to project", for the refusal. */
  what: string
}

/**
 * Runs `write` with the flags' choice. Refused for sensitive content: shows the report, then asks on a
 * terminal (and writes again as chosen) or fails with exit 5.
 */
export async function clearSensitive<T>(
  choice: SensitiveChoice,
  o: ClearOptions,
  write: (choice: SensitiveChoice) => Promise<T>,
): Promise<T> {
  let r: SensitiveReport
  try {
    return await write(choice)
  } catch (e) {
    if (!(e instanceof KbError) || e.code !== 'sensitive_content') throw e
    r = reportOf(e)
    if (!o.json) process.stderr.write(renderReport(r, o.mode))
    if (o.json || !interactive()) throw refusal(e, r, o.what)
  }
  const all = r.findings_total === r.findings.length
  const answer = await choose(
    all ? 'Redact them and go on [r], keep them as written and record that [k], or stop [s]?' : 'Redact them and go on [r], or stop [s]?',
    all ? (['r', 'k', 's'] as const) : (['r', 's'] as const),
  )
  if (answer === 's') throw new KbError('sensitive_content', 'stopped: nothing was changed')
  const next: SensitiveChoice =
    answer === 'r' ? {...choice, redact: true} : {...choice, acknowledge: [...(choice.acknowledge ?? []), ...r.findings.map((f) => f.id)]}
  try {
    return await write(next)
  } catch (e) {
    // The entry changed between the two writes: report what is there now, without asking twice.
    if (e instanceof KbError && e.code === 'sensitive_content') throw refusal(e, reportOf(e), o.what)
    throw e
  }
}
