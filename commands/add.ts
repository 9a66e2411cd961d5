/**
 * @module `kb add`: create a knowledge entry; piped, prints only the new id.
 */
import {Args, Flags} from '@oclif/core'
import {KbError} from '../src/shared/errors.js'
import {writeRequests} from '../src/shared/client.js'
import type {Comment, EntryCreated, SimilarItem} from '../src/shared/types.js'
import {KbCommand} from '../src/cli/base.js'
import {ANCHOR_HELP, bodyFrom, noQueueFlag, scopeFlag, tagsFrom, THOUGHT_HELP, thoughtsFrom} from '../src/cli/flags.js'
import {dim, green, oneLine, yellow} from '../src/cli/output/format.js'
import {isQueued, type QueuedWrite} from '../src/cli/outbox/state.js'
import {isUuid} from '../src/cli/project/project.js'
import {uuidv7} from '../src/shared/uuidv7.js'
import {choiceFrom, clearSensitive, sensitiveFlags} from '../src/cli/safe-publish.js'
import type {AnchorIn} from '../src/shared/schemas.js'
import {mentionsPath} from '../src/cli/anchors/suggest.js'
import {safeText} from '../src/cli/output/safe-text.js'
import {askAboutSimilar, similarLines} from '../src/cli/similar.js'
import {shortId} from '../src/shared/short-id.js'

export default class Add extends KbCommand<typeof Add> {
  static override summary = 'Add a knowledge entry'
  static override description =
    'The body comes from --body, --body-file (- for stdin), stdin when piped, or $EDITOR on a terminal. In a checkout whose project is known (docs/cli.md, "The project of a checkout") the entry belongs to that project (scope project by default); elsewhere it is private unless --scope says otherwise.\n\n' +
    'In project or global scope the entry is scanned for secrets and personal data as `kb publish` does: on a terminal you choose to redact them, ' +
    'keep them (recorded on the entry) or stop; elsewhere the command fails with exit 5 unless --redact or --acknowledge <ids> says what to do.\n\n' +
    'Entries you can see that look like the same knowledge are shown first on a terminal, with the choice to add anyway, comment on one of them ' +
    'instead, or cancel (--yes adds without asking); elsewhere the entry is added and they are listed on stderr.'
  static override examples = [
    '<%= config.bin %> add "Port 7411 already in use" --body "Another daemon holds it; run kb daemon stop." --tag daemon',
    'journalctl -u kb | <%= config.bin %> add "Daemon crash on start" --tag crash --scope global',
    'id=$(<%= config.bin %> add "Flaky test" --body-file notes.md --thought "observation: fails 1 in 10" --thought "hypothesis: port reuse")',
  ]
  static override args = {title: Args.string({description: 'title of the entry (or --title)'})}
  static override flags = {
    title: Flags.string({description: 'title of the entry'}),
    body: Flags.string({char: 'b', description: 'body text (Markdown)'}),
    'body-file': Flags.string({char: 'F', description: 'read the body from this file (- for stdin)'}),
    tag: Flags.string({char: 't', description: 'a tag (repeatable, or comma-separated)', multiple: true}),
    url: Flags.string({description: 'a source: issue, commit, doc (absolute http(s) URL)'}),
    scope: scopeFlag('who may see it: private, project or global (default project when a project is known, else private)'),
    thought: Flags.string({description: THOUGHT_HELP, multiple: true}),
    anchor: Flags.string({description: ANCHOR_HELP, multiple: true}),
    'anchor-suggested': Flags.boolean({
      description: 'in a checkout, also anchor the repository paths the body mentions (kb lists them on stderr either way)',
      default: false,
    }),
    'no-queue': noQueueFlag,
    yes: Flags.boolean({char: 'y', description: 'add even when similar entries exist, without asking', default: false}),
    ...sensitiveFlags,
  }

  async run(): Promise<EntryCreated | Comment | QueuedWrite | {cancelled: true; similar: SimilarItem[]}> {
    const {flags, args} = this
    if (args.title !== undefined && flags.title !== undefined && args.title !== flags.title)
      throw new KbError('usage', 'give the title once: as the argument or as --title')
    const title = args.title ?? flags.title
    if (title === undefined || title.trim() === '') throw new KbError('usage', 'a title is required: kb add "<title>" --body "<text>"')
    const body = await bodyFrom(flags, `\n#kb: Write the body of "${title}" above (Markdown). Lines starting with #kb: are dropped.\n`)
    if (body === null || body.trim() === '') throw new KbError('usage', 'a body is required: pass --body, --body-file or pipe it on stdin')
    const choice = choiceFrom(flags)
    const anchors = await this.anchors(body)
    // A project named by its remote is looked up on the server, so offline that waits for `kb sync`.
    const ref = await this.projectRef()
    // Chosen here, so an entry queued offline has its id now (docs/cli.md, "Offline writes"); every attempt sends it.
    const id = uuidv7()
    const input = {
      id,
      title,
      body,
      ...(flags.scope ? {scope: flags.scope} : {}),
      ...(ref && ref.source !== 'remote' && isUuid(ref.ref) ? {project_id: ref.ref.toLowerCase()} : {}),
      ...(flags.tag ? {tags: tagsFrom(flags.tag)} : {}),
      ...(flags.url ? {url: flags.url} : {}),
      ...(flags.thought ? {thought_chain: thoughtsFrom(flags.thought)} : {}),
      ...(anchors.length > 0 ? {anchors} : {}),
    }
    // Straight into a shared scope, the entry is scanned as a publish would be (docs/cli.md, "Safe publish").
    const send = (onSimilar?: 'refuse'): Promise<EntryCreated | QueuedWrite> =>
      clearSensitive(choice, {mode: this.mode, json: this.jsonEnabled(), what: 'adding this entry to a shared scope'}, (c) =>
        this.write<EntryCreated>(
          {
            command: 'add',
            label: title,
            request: writeRequests.createEntry({...input, ...c}, onSimilar),
            ...(ref && (ref.source === 'remote' || !isUuid(ref.ref)) ? {project_ref: ref} : {}),
          },
          // The question needs the server: a refusing create is never queued (offline, the plain create is).
          onSimilar === 'refuse' ? true : flags['no-queue'],
        ),
      )
    let entry: EntryCreated | QueuedWrite
    let asked = false
    if (this.mode.tty && !flags.yes && !this.jsonEnabled()) {
      try {
        entry = await send('refuse')
      } catch (e) {
        if (this.queues(e, flags['no-queue'])) entry = await send()
        else if (e instanceof KbError && e.code === 'possible_duplicate' && Array.isArray(e.extra?.similar)) {
          const similar = e.extra.similar as SimilarItem[]
          const decision = await askAboutSimilar(similar)
          asked = true
          if (decision.kind === 'cancel') {
            this.out('Cancelled: nothing added.')
            return {cancelled: true, similar}
          }
          if (decision.kind === 'comment') {
            const comment = await (await this.client()).comment(decision.on.id, {body: `${title}\n\n${body}`})
            this.out(`${green(this.mode, 'Commented')} on ${shortId(decision.on.id)}  ${oneLine(decision.on.title)}`)
            return comment
          }
          entry = await send()
        } else throw e
      }
    } else entry = await send()
    if (isQueued(entry)) {
      // Stdout carries the id as it does online, so a script's next command has it (it works once `kb sync` sent the entry).
      if (!this.jsonEnabled()) {
        this.out(this.mode.tty ? `${yellow(this.mode, 'Queued')} ${id}  ${oneLine(title)}` : id)
        process.stderr.write(`kb: the entry will have id ${id} once \`kb sync\` sends it\n`)
      }
      return {...entry, id}
    }
    // An older server answers no `similar`.
    const similar = entry.similar ?? []
    if (!asked && !this.jsonEnabled() && similar.length > 0)
      process.stderr.write(`kb: similar entries exist (comment on one instead of adding a copy):\n${similarLines(similar).join('\n')}\n`)
    if (this.mode.tty)
      this.out(
        `${green(this.mode, 'Created')} ${shortId(entry.id)}  ${oneLine(entry.title)}\n${dim(this.mode, oneLine(`scope ${entry.scope}${entry.tags.length > 0 ? ` · tags ${entry.tags.join(', ')}` : ''}`))}`,
      )
    else this.out(entry.id)
    return entry
  }

  /** `--anchor` specs and the paths the body mentions (docs/cli.md, "Anchors"); git only when there is something to anchor. */
  private async anchors(body: string): Promise<AnchorIn[]> {
    const specs = this.flags.anchor ?? []
    if (specs.length === 0 && !mentionsPath(body)) return []
    const {anchorsForNewEntry} = await import('../src/cli/anchors/local.js')
    return anchorsForNewEntry(body, specs, this.flags['anchor-suggested'], (line) => {
      if (!this.jsonEnabled() || process.stderr.isTTY) process.stderr.write(`kb: ${safeText(line)}\n`)
    })
  }
}
