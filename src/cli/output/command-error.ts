/**
 * @module How a failed command ends (docs/cli.md, "Exit codes"): the exit code of its `KbError`
 * (2 for oclif's own parse errors), one `kb:` line on stderr with the fix from the hints table, and with
 * --json the same as `{error}` on stdout. The server's words never reach the terminal raw.
 */
import {join} from 'node:path'
import {KbError, type ErrorCode} from '../../shared/errors.js'
import {isServerError} from '../../shared/client.js'
import {hintFor, withHint} from '../../shared/hints.js'
import {jsonText} from './format.js'
import {safeText} from './safe-text.js'
import {usageLine} from './usage-error.js'

export interface CommandErrorContext {
  /** The command as typed: `api-key revoke`. */
  command: string
  json: boolean
  /** The command's flags (`--limit`), for "did you mean" after an unknown one. */
  flags?: string[]
  /** The server is remote: advice about the local daemon (its log) does not apply. */
  remote?: boolean
  /**
   * For a request sent without a credential: the local daemon keeps its data in `dir`, not in `looked`
   * where kb looked for owner.key (then the message says where the key is); null otherwise.
   */
  elsewhere: () => Promise<{baseUrl: string; looked: string; dir: string} | null>
}

export async function reportCommandError(err: Error & {exitCode?: number; oclif?: {exit?: number}}, o: CommandErrorContext): Promise<void> {
  let code: ErrorCode | null = null
  let message = err.message
  let exit: number
  if (err instanceof KbError) {
    code = err.code
    exit = err.exitCode
    const hint = isServerError(err)
      ? hintFor(err.code, 'cli', {
          command: o.command,
          field: err.errors?.length === 1 ? err.errors[0]!.path : undefined,
          remote: o.remote,
        })
      : undefined
    message = withHint(message, hint?.replace('<command>', o.command))
    const elsewhere = err.code === 'unauthenticated' ? await o.elsewhere() : null
    if (elsewhere) {
      const {baseUrl, looked, dir} = elsewhere
      message = `no credential: the kb daemon at ${baseUrl} keeps its data in ${dir}, not in ${looked} where kb looked for owner.key; set KB_DATA_DIR=${dir} (its key is ${join(dir, 'owner.key')}), or log in with \`kb auth login --with-token\``
    }
    if (err.code === 'ambiguous_id') message += candidateLines(err.extra?.candidates)
    if (err.code === 'rate_limited' && err.headers?.['retry-after']) message = `${err.message}; retry in ${err.headers['retry-after']} s`
  } else if (err.oclif?.exit !== undefined) {
    // oclif's own errors: parse errors (unknown flag, missing argument, bad option value) exit 2.
    exit = err.oclif.exit
    if (err.message.startsWith('EEXIT:')) {
      process.exitCode = exit
      return
    }
    code = exit === 2 ? 'usage' : null
    message = usageLine(message, o.command, o.flags)
  } else {
    exit = 1
  }
  process.exitCode = exit
  if (o.json) {
    const e = err instanceof KbError ? err : undefined
    // A problem's extension members (a sensitive_content refusal's findings) go along for scripts to read.
    const error = {
      code: code ?? 'error',
      message,
      exit,
      ...(e?.status ? {status: e.status} : {}),
      ...(e?.errors ? {errors: e.errors} : {}),
      ...(e?.extra ?? {}),
    }
    process.stdout.write(`${jsonText({error})}\n`)
  }
  // The message may echo the server's words (a problem's detail): never raw to the terminal. --json keeps them exact.
  process.stderr.write(`kb: ${safeText(message).split('\n').join('\n    ')}\n`)
}

/** An ambiguous short id's candidates (docs/cli.md, "Short ids"), one line each: the short form, then the title. */
function candidateLines(candidates: unknown): string {
  if (!Array.isArray(candidates)) return ''
  return candidates
    .filter((c): c is {short_id: string; title: string} => typeof c?.short_id === 'string' && typeof c?.title === 'string')
    .map((c) => `\n${c.short_id}  ${c.title.replace(/\s+/g, ' ').trim()}`)
    .join('')
}
