/**
 * @module `kb edit <id>`: change an entry from flags, or in $EDITOR on a terminal; the change is sent
 * with `If-Match`, so an edit never silently overwrites someone else's.
 */
import {Flags} from '@oclif/core'
import {KbError} from '../src/shared/errors.js'
import type {EntryFull} from '../src/shared/types.js'
import {writeRequests} from '../src/shared/client.js'
import type {PatchEntryBody} from '../src/shared/schemas.js'
import {KbCommand} from '../src/cli/base.js'
import {entryIdArg, noQueueFlag, statusFlag, tagsFrom, THOUGHT_HELP, thoughtsFrom} from '../src/cli/flags.js'
import {confirm, editText, interactive, readStdin} from '../src/cli/input.js'
import {green, oneLine} from '../src/cli/output/format.js'
import {patchFor, removes} from '../src/cli/outbox/edit-intent.js'
import {isQueued, type EditIntent, type QueuedWrite} from '../src/cli/outbox/state.js'
import {choiceFrom, clearSensitive, sensitiveFlags} from '../src/cli/safe-publish.js'
import {readFile} from 'node:fs/promises'
import {ANCHOR_HELP} from '../src/cli/flags.js'
import {conflictDiff, draftPath, dropDraft, saveDraft} from '../src/cli/merge/draft.js'
import {editorText, patchFromText, withPatch} from '../src/cli/merge/editor-text.js'
import {sendMerged} from '../src/cli/merge/send.js'
import {baseOf, type EditBase, type MergeField} from '../src/cli/merge/three-way.js'
import {anchorLabel, parseAnchorSpec, rootRelative} from '../src/cli/anchors/spec.js'
import {shortId} from '../src/shared/short-id.js'

export default class Edit extends KbCommand<typeof Edit> {
  static override summary = 'Change a knowledge entry'
  static override description =
    'With flags, changes just those fields. With none, on a terminal, opens $EDITOR on the title, tags, url and body. The change carries If-Match with the version read; if someone changed the entry meanwhile, the edit is merged field by field (tags as sets) with their change. Only when the same field was changed on both sides does it stop (exit 5): your text is kept in a draft file, the diff shown, and on a terminal it offers to edit again on the newest version. Comments never conflict with an edit. When the server cannot be reached, an edit is queued for `kb sync`, which merges it the same way and makes a fork only on a true conflict.'
  static override examples = [
    '<%= config.bin %> edit 0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7980 --title "Port 7411 in use after crash"',
    '<%= config.bin %> edit 0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7980 --add-tag flaky',
    '<%= config.bin %> edit 0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7980   # opens $EDITOR',
  ]
  static override args = {id: entryIdArg}
  static override entryArgs = ['id']
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
    'if-version': Flags.integer({
      description:
        'only change it if it is still at this version, no merge (default: the version just read, merged with changes made meanwhile)',
    }),
    'no-queue': noQueueFlag,
    // An entry in a shared scope is scanned for what the edit brings (docs/cli.md, "Safe publish").
    ...sensitiveFlags,
  }

  async run(): Promise<EntryFull | QueuedWrite> {
    const {flags, args} = this
    const choice = choiceFrom(flags)
    const intent = await intentFrom(args.id, flags)
    const fromFlags = changesSomething(intent)
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
    refuseUnknownRemovals(args.id, current, intent)
    let patch: PatchEntryBody
    let drafted = false
    if (fromFlags) patch = patchFor(current, intent)
    else {
      patch = this.fromEditor(current, current)
      drafted = true
      if (Object.keys(patch).length === 0) {
        dropDraft(args.id)
        this.out('No changes.')
        return current
      }
    }
    const pinned = flags['if-version']
    let base = current
    for (;;) {
      const version = pinned ?? base.version
      const outcome = await sendMerged<EntryFull | QueuedWrite>({
        base: baseOf(base, patch),
        mine: patch,
        version,
        read: async () => {
          // --if-version asks for that version or nothing: no merge.
          if (pinned !== undefined) throw stale(args.id, pinned, 'someone changed it since; --if-version asks for that version or nothing')
          return (await (await this.client()).getEntry(args.id, 'full')).entry as EntryFull
        },
        send: (p, v) => this.send(args.id, p, v, choice, fromFlags && base === current ? intent : null, baseOf(base, patch)),
      })
      if (outcome.kind === 'conflict') {
        if (!(await this.reopen(args.id, patch, outcome, drafted)))
          throw stale(args.id, version, `${outcome.conflicts.join(', ')} changed there too; your text is kept in ${draftPath(args.id)}`)
        base = outcome.theirs
        patch = this.fromEditor(base, withPatch(base, {...outcome.merged, ...pick(patch, outcome.conflicts)}), [
          `Merged onto version ${base.version}: ${outcome.conflicts.join(', ')} changed there too (diff above); saving sends what you leave here.`,
        ])
        drafted = true
        if (Object.keys(patch).length > 0) continue
        dropDraft(args.id)
        this.out('No changes.')
        return base
      }
      dropDraft(args.id)
      if (outcome.kind === 'unchanged') {
        this.out(`No changes: version ${outcome.entry.version} already says this.`)
        return outcome.entry
      }
      if (!isQueued(outcome.result)) this.reportUpdated(outcome.result, outcome.merged_with)
      return outcome.result
    }
  }

  /** The line that says the entry was updated, and whether changes made meanwhile were merged in. */
  private reportUpdated(updated: EntryFull, mergedWith: number | null): void {
    const merged = mergedWith === null ? '' : `, merged with changes made meanwhile (version ${mergedWith})`
    if (this.mode.tty)
      this.out(`${green(this.mode, 'Updated')} ${shortId(updated.id)}  ${oneLine(updated.title)} (version ${updated.version}${merged})`)
    else {
      this.out(`${updated.id}\t${updated.version}`)
      if (merged) this.note(`merged with changes made meanwhile (version ${mergedWith})`)
    }
  }

  /** Opens the editor on `shown` (based on `entry`), keeps the saved text as the draft, and returns what it changes of `entry`. */
  private fromEditor(entry: EntryFull, shown: Parameters<typeof editorText>[0], notes: string[] = []): PatchEntryBody {
    const text = editText(editorText(shown, notes))
    saveDraft(entry.id, text)
    return patchFromText(entry, text)
  }

  /** PATCH against `version`, through the sensitive-content choice; offline it is queued with what it was based on. */
  private send(
    id: string,
    patch: PatchEntryBody,
    version: number,
    choice: ReturnType<typeof choiceFrom>,
    intent: EditIntent | null,
    base: EditBase,
  ): Promise<EntryFull | QueuedWrite> {
    return clearSensitive(choice, {mode: this.mode, json: this.jsonEnabled(), what: `editing ${id}`}, (c) => {
      const request = writeRequests.patchEntry(id, {...patch, ...c}, `"${version}"`)
      // Queued, the edit keeps what was asked and what it was made on, so `kb sync` merges it as this would.
      const edit = intent ? {...intent, set: {...intent.set, ...c}, version, base} : {entry_id: id, set: {...patch, ...c}, version, base}
      return this.write<EntryFull>({command: 'edit', label: id, request, edit}, this.flags['no-queue'])
    })
  }

  /** A true conflict: the text is kept as the draft, the diff shown; on a terminal, offers to edit again on the newest version. */
  private async reopen(
    id: string,
    patch: PatchEntryBody,
    c: {theirs: EntryFull; conflicts: MergeField[]},
    drafted: boolean,
  ): Promise<boolean> {
    const file = drafted ? draftPath(id) : saveDraft(id, editorText(withPatch(c.theirs, patch)))
    process.stderr.write(
      `kb: entry ${id} changed meanwhile (now version ${c.theirs.version}): ${c.conflicts.join(', ')} changed there too.\n` +
        `kb: your text is saved in ${file}\n${conflictDiff(c.theirs, patch, c.conflicts)}\n`,
    )
    return interactive() && !this.jsonEnabled() && (await confirm(`Edit again on version ${c.theirs.version}, starting from your text?`))
  }
}

function stale(id: string, version: number, why: string): KbError {
  return new KbError(
    'precondition_failed',
    `entry ${shortId(id)} changed since version ${version} was read (${why}); run \`kb show ${shortId(id)}\` and edit again`,
  )
}

function pick(patch: PatchEntryBody, fields: readonly MergeField[]): PatchEntryBody {
  return Object.fromEntries(Object.entries(patch).filter(([k]) => (fields as readonly string[]).includes(k))) as PatchEntryBody
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

/** Whether the flags say what to change (else the editor opens). */
function changesSomething(intent: EditIntent): boolean {
  return (
    Object.keys(intent.set).length > 0 ||
    intent.add_tags !== undefined ||
    intent.remove_tags !== undefined ||
    intent.add_anchors !== undefined ||
    intent.remove_anchors !== undefined
  )
}

/** An anchor to remove that the entry does not have is a usage error that lists the ones it has. */
function refuseUnknownRemovals(id: string, current: EntryFull, intent: EditIntent): void {
  for (const r of intent.remove_anchors ?? [])
    if (!current.anchors.some((a) => removes(r, a)))
      throw new KbError(
        'usage',
        `--remove-anchor ${anchorLabel(r)}: entry ${shortId(id)} has no such anchor (it has ${current.anchors.map(anchorLabel).join(', ') || 'none'})`,
      )
}
