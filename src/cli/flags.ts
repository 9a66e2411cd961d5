/**
 * @module Flags and inputs several commands share: scope/status/detail options, tags, the thought chain,
 * and where a body comes from (flag, file, stdin, or $EDITOR on a terminal).
 */
import {Args, Flags, type Interfaces} from '@oclif/core'
import {readFile} from 'node:fs/promises'
import {KbError} from '../shared/errors.js'
import {COMMENT_TYPE_DEFAULT, COMMENT_TYPES, DETAILS, SCOPES, STATUSES, THOUGHT_KIND_DEFAULT, THOUGHT_KINDS} from '../shared/contract.js'
import type {Scope, ThoughtKind} from '../shared/types.js'
import {editText, interactive, readStdin, stdinPiped} from './input.js'

type OptionFlag<T> = Interfaces.OptionFlag<T>

/** The argument of every command that acts on one entry: a whole id, or a short id (docs/cli.md, "Short ids"). */
export const entryIdArg = Args.string({description: 'entry id, or a short id: its start or end', required: true})

/** A `--scope` flag with the command's own description. */
export function scopeFlag(description: string): OptionFlag<Scope | undefined> {
  return Flags.option({options: SCOPES, description})()
}
export const statusFlag = Flags.option({options: STATUSES, description: 'only open or only resolved entries'})
export const detailFlag = Flags.option({
  options: DETAILS,
  description: 'how much of each entry: summary, standard or full (config default_detail)',
})
/** `--no-pager` for the commands whose output is paged on a terminal (KbCommand.pager). */
export const noPagerFlag = Flags.boolean({
  description: 'print everything at once instead of through $KB_PAGER, $PAGER or less',
  default: false,
})
export const commentTypeFlag = Flags.option({options: COMMENT_TYPES, description: 'kind of comment', default: COMMENT_TYPE_DEFAULT})

/** `--tag a --tag b,c` → [a, b, c]. */
export function tagsFrom(values: string[] | undefined): string[] | undefined {
  if (!values) return undefined
  return values
    .flatMap((v) => v.split(','))
    .map((t) => t.trim())
    .filter((t) => t !== '')
}

const THOUGHT_PREFIX = new RegExp(`^\\s*(${THOUGHT_KINDS.join('|')})\\s*:\\s*(.*)$`, 'is')

/** `--thought "hypothesis: the port is taken"` → a step; a kind prefix is optional (default observation). */
export function thoughtsFrom(values: string[] | undefined): {thought: string; kind: ThoughtKind}[] | undefined {
  if (!values) return undefined
  return values.map((v) => {
    const m = THOUGHT_PREFIX.exec(v)
    return m ? {kind: m[1]!.toLowerCase() as ThoughtKind, thought: m[2]!.trim()} : {kind: THOUGHT_KIND_DEFAULT, thought: v.trim()}
  })
}

/** `--fresh` / `--stale` on list and search: the API's `freshness` filter (docs/cli.md, "Freshness"). */
export const freshnessFlags = {
  fresh: Flags.boolean({description: 'only fresh entries (no changed anchor, open flag or overdue verification)', exclusive: ['stale']}),
  stale: Flags.boolean({description: 'only stale entries', exclusive: ['fresh']}),
}

/** `--no-queue`, on every command that writes: fail (exit 6) instead of queueing when the server cannot be reached. */
export const noQueueFlag = Flags.boolean({
  description:
    'fail (exit 6) instead of queueing the write for `kb sync` when the server cannot be reached (env KB_NO_QUEUE=1, config queue_writes false)',
})

export const ANCHOR_HELP =
  'the code this is about: path, path:a-b, path:a or path#symbol (repeatable); in a checkout the path is relative to the current directory and kb records HEAD and a hash of the text'

export const THOUGHT_HELP = `a step of the reasoning, in order (repeatable); prefix a kind: ${THOUGHT_KINDS.join(', ')} (default ${THOUGHT_KIND_DEFAULT})`

/**
 * The body of a new entry or comment: `--body`, else `--body-file` (`-` for stdin), else stdin when it
 * is piped, else $EDITOR when a person is at a terminal. Null when there is none.
 */
export async function bodyFrom(flags: {body?: string; 'body-file'?: string}, editorTemplate: string | null): Promise<string | null> {
  if (flags.body !== undefined) return flags.body
  const file = flags['body-file']
  if (file !== undefined) {
    if (file === '-') return readStdin()
    try {
      return await readFile(file, 'utf8')
    } catch (e) {
      throw new KbError('usage', `cannot read --body-file ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`)
    }
  }
  if (stdinPiped()) return readStdin()
  if (editorTemplate !== null && interactive()) return stripComments(editText(editorTemplate))
  return null
}

/** Lines starting with `#kb:` in an editor template are instructions, not content. */
function stripComments(text: string): string {
  return text
    .split('\n')
    .filter((l) => !l.startsWith('#kb:'))
    .join('\n')
}

/** `--include-superseded` of `kb list` and `kb search` (docs/cli.md, "Supersede and merge"). */
export const includeSupersededFlag = Flags.boolean({description: 'superseded entries too (left out by default)', default: false})
