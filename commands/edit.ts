/**
 * @module `kb edit <id>`: change an entry from flags, or in $EDITOR on a terminal; the change is sent
 * with `If-Match`, so an edit never silently overwrites someone else's.
 */
import {Args, Flags} from '@oclif/core'
import {KbError} from '../src/shared/errors.js'
import type {EntryFull} from '../src/shared/types.js'
import {writeRequests} from '../src/shared/client.js'
import type {PatchEntryBody} from '../src/shared/schemas.js'
import {KbCommand} from '../src/cli/base.js'
import {noQueueFlag, statusFlag, tagsFrom, THOUGHT_HELP, thoughtsFrom} from '../src/cli/flags.js'
import {editText, interactive, readStdin} from '../src/cli/input.js'
import {green, oneLine} from '../src/cli/output/format.js'
import {patchFor, removes} from '../src/cli/outbox/edit-intent.js'
import {isQueued, type EditIntent, type QueuedWrite} from '../src/cli/outbox/state.js'
import {choiceFrom, clearSensitive, sensitiveFlags} from '../src/cli/safe-publish.js'
import {readFile} from 'node:fs/promises'
import {ANCHOR_HELP} from '../src/cli/flags.js'
import {anchorLabel, parseAnchorSpec, rootRelative} from '../src/cli/anchors/spec.js'

export default class Edit extends KbCommand<typeof Edit> {
  static override summary = 'Change a knowledge entry'
  static override description =
    'With flags, changes just those fields. With none, on a terminal, opens $EDITOR on the title, tags, url and body. The change carries If-Match with the version read, so if someone changed the entry meanwhile it fails with exit 5 instead of overwriting their change. When the server cannot be reached, an edit made with flags is queued for `kb sync`; if the entry changed by the time it is sent, the edit goes to a fork of it instead.'
  static override examples = [
    '<%= config.bin %> edit 0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7980 --title "Port 7411 in use after crash"',
    '<%= config.bin %> edit 0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7980 --add-tag flaky',
    '<%= config.bin %> edit 0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7980   # opens $EDITOR',
  ]
  static override args = {id: Args.string({description: 'entry id', required: true})}
  static override flags = {
    title: Flags.string({description: 'new title'}),
    body: Flags.string({char: 'b', description: 'new body'}),
    'body-file': Flags.string({char: 'F', description: 'read the new body from this file (- for stdin)'}),
    tag: Flags.string({char: 't', description: 'replace the tags with these (repeatable)', multiple: true}),
    'add-tag': Flags.string({description: 'add a tag (repeatable)', multiple: true}),
    'remove-tag': Flags.string({description: 'remove a tag (repeatable)', multiple: true}),
    url: Flags.string({description: 'new source URL ("" clears it)'}),
    thought: Flags.string({description: `replace the thought chain: ${THOUGHT_HELP}`, multiple: true}),
    status: statusFlag(),
    anchor: Flags.string({description: ANCHOR_HELP, multiple: true}),
    'remove-anchor': Flags.string({
      description: 'remove this anchor: path, path:a-b or path#symbol as shown by kb show (repeatable)',
      multiple: true,
    }),
    'if-version': Flags.integer({description: 'only change it if it is still at this version (default: the version just read)'}),
    'no-queue': noQueueFlag,
    // An entry in a shared scope is scanned for what the edit brings (docs/cli.md, "Safe publish").
    ...sensitiveFlags,
  }

  async run(): Promise<EntryFull | QueuedWrite> {
    const {flags, args} = this
    const choice = choiceFrom(flags)
    const intent = await intentFrom(args.id, flags)
    const fromFlags =
      Object.keys(intent.set).length > 0 ||
      intent.add_tags !== undefined ||
      intent.remove_tags !== undefined ||
      intent.add_anchors !== undefined ||
      intent.remove_anchors !== undefined
    if (!fromFlags && !interactive())
      throw new KbError(
        'usage',
        'nothing to change: pass --title, --body, --tag, --url, --status, --anchor … (the editor opens only on a terminal)',
      )
    let current: EntryFull
    try {
      current = (await (await this.client()).getEntry(args.id, 'full')).entry as EntryFull
    } catch (e) {
      // Out of reach: flags say what to change without the entry, so the edit waits for `kb sync` (the editor cannot).
      if (!fromFlags || !this.queues(e, flags['no-queue'])) throw e
      return this.enqueue({command: 'edit', label: args.id, edit: intent}, e)
    }
    for (const r of intent.remove_anchors ?? [])
      if (!current.anchors.some((a) => removes(r, a)))
        throw new KbError(
          'usage',
          `--remove-anchor ${anchorLabel(r)}: entry ${args.id} has no such anchor (it has ${current.anchors.map(anchorLabel).join(', ') || 'none'})`,
        )
    const version = flags['if-version'] ?? current.version
    let patch: PatchEntryBody
    if (fromFlags) patch = patchFor(current, intent)
    else {
      patch = fromEditor(current)
      if (Object.keys(patch).length === 0) {
        this.out('No changes.')
        return current
      }
    }
    let updated: EntryFull | QueuedWrite
    try {
      updated = await clearSensitive(choice, {mode: this.mode, json: this.jsonEnabled(), what: `editing ${args.id}`}, (c) => {
        const request = writeRequests.patchEntry(args.id, {...patch, ...c}, `"${version}"`)
        // Queued, the edit keeps what was asked, so if the entry changes before it is sent it can go to a fork.
        const edit = fromFlags ? {...intent, set: {...intent.set, ...c}, version} : {entry_id: args.id, set: {...patch, ...c}, version}
        return this.write<EntryFull>({command: 'edit', label: args.id, request, edit}, flags['no-queue'])
      })
    } catch (e) {
      if (e instanceof KbError && e.code === 'precondition_failed') {
        throw new KbError(
          'precondition_failed',
          `entry ${args.id} changed since version ${version} was read (someone else edited it); run \`kb show ${args.id}\` and edit again`,
        )
      }
      throw e
    }
    if (isQueued(updated)) return updated
    if (this.mode.tty) this.out(`${green(this.mode, 'Updated')} ${updated.id}  ${oneLine(updated.title)} (version ${updated.version})`)
    else this.out(`${updated.id}\t${updated.version}`)
    return updated
  }
}

/** What the flags ask for, read before anything is sent (a body file or stdin is read now, not when sent). */
async function intentFrom(id: string, flags: Edit['flags']): Promise<EditIntent> {
  const set: PatchEntryBody = {}
  if (flags.title !== undefined) set.title = flags.title
  if (flags.body !== undefined) set.body = flags.body
  else if (flags['body-file'] !== undefined)
    set.body = flags['body-file'] === '-' ? await readStdin() : await readBodyFile(flags['body-file'])
  if (flags.tag) set.tags = tagsFrom(flags.tag)!
  if (flags.url !== undefined) set.url = flags.url === '' ? null : flags.url
  if (flags.thought) set.thought_chain = thoughtsFrom(flags.thought)
  if (flags.status) set.status = flags.status
  return {
    entry_id: id,
    set,
    ...(flags['add-tag'] ? {add_tags: tagsFrom(flags['add-tag'])} : {}),
    ...(flags['remove-tag'] ? {remove_tags: tagsFrom(flags['remove-tag'])} : {}),
    ...(flags['if-version'] !== undefined ? {version: flags['if-version']} : {}),
    ...(await anchorChanges(flags)),
  }
}

/** `--anchor` made in the checkout now (its commit and hash are of this moment), `--remove-anchor` as places. */
async function anchorChanges(flags: Edit['flags']): Promise<Pick<EditIntent, 'add_anchors' | 'remove_anchors'>> {
  if (!flags.anchor && !flags['remove-anchor']) return {}
  const {anchorsFromSpecs, checkoutAt} = await import('../src/cli/anchors/local.js')
  const co = await checkoutAt()
  const place = (spec: string): {path: string; lines: string | null; symbol: string | null} => {
    const p = parseAnchorSpec(spec)
    return co ? {...p, path: rootRelative(p.path, process.cwd(), co.root)} : p
  }
  return {
    ...(flags.anchor ? {add_anchors: await anchorsFromSpecs(flags.anchor, co)} : {}),
    ...(flags['remove-anchor'] ? {remove_anchors: flags['remove-anchor'].map(place)} : {}),
  }
}

async function readBodyFile(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8')
  } catch (e) {
    throw new KbError('usage', `cannot read --body-file ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`)
  }
}

const HEADER_END = '--- body below ---'

/** Edits title, tags, url and body as one text: `key: value` lines, a separator, then the body. */
function fromEditor(e: EntryFull): PatchEntryBody {
  const text = editText(`title: ${e.title}\ntags: ${e.tags.join(', ')}\nurl: ${e.url ?? ''}\n${HEADER_END}\n${e.body}`)
  const sep = text.indexOf(`${HEADER_END}\n`)
  if (sep === -1) throw new KbError('usage', `the edited text lost its "${HEADER_END}" line; nothing was changed`)
  const head: Record<string, string> = {}
  for (const line of text.slice(0, sep).split('\n')) {
    const m = /^(\w+):\s?(.*)$/.exec(line)
    if (m) head[m[1]!.toLowerCase()] = m[2]!.trim()
  }
  const body = text.slice(sep + HEADER_END.length + 1)
  const patch: PatchEntryBody = {}
  if (head.title !== undefined && head.title !== e.title) patch.title = head.title
  if (body.trimEnd() !== e.body.trimEnd()) patch.body = body
  const tags = (head.tags ?? '')
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean)
  if (tags.join(',') !== e.tags.join(',')) patch.tags = tags
  const url = head.url ?? ''
  if (url !== (e.url ?? '')) patch.url = url === '' ? null : url
  return patch
}
