/**
 * @module `kb check`: checks the anchors of the project's entries against this checkout (the work tree, or
 * `--commit <rev>`), reports what it found to the server, and prints what moved or went stale and why
 * (docs/cli.md, "kb check"). The git hook runs `kb check --changed-in <range>` in the background.
 */
import {Flags} from '@oclif/core'
import {writeRequests} from '../src/shared/client.js'
import {ERROR_CODES, KbError} from '../src/shared/errors.js'
import type {EntryFull} from '../src/shared/types.js'
import {KbCommand} from '../src/cli/base.js'
import {checkAnchors} from '../src/cli/anchors/check.js'
import {notAncestors, pathsChangedIn, resolveCommit} from '../src/cli/anchors/git.js'
import {checkoutAt} from '../src/cli/anchors/local.js'
import {gather, remember, type CheckEntry} from '../src/cli/anchors/gather.js'
import {checkedAnchor, countStates, renderCheck, type CheckedEntry, type CheckReport} from '../src/cli/anchors/report.js'
import {isQueued} from '../src/cli/outbox/state.js'
import {shortId} from '../src/shared/short-id.js'

/** How many reports are in flight at once: enough to hide the round trips, few enough not to crowd the daemon. */
const PARALLEL = 8

export default class Check extends KbCommand<typeof Check> {
  static override summary = "Check the project's anchors against this checkout"
  static override description =
    "Each anchor of the project's entries is looked up in the work tree (or at --commit): the same text is current; the text found at another path (git's rename detection) or other lines is moved, and the anchor follows it; different text is changed; a file that is gone is deleted. " +
    'What changed is reported to the server, which makes the entry stale (changed, deleted) and says why in `kb show`. ' +
    '--changed-in <range> checks only the anchors on files that range touched (what the git hook runs after each commit, merge and checkout). ' +
    'Exit 0 whatever was found, unless --fail-on stale and an anchor is changed or deleted: then exit 1 (for CI).'
  static override examples = [
    '<%= config.bin %> check',
    '<%= config.bin %> check --changed-in HEAD~1..HEAD',
    '<%= config.bin %> check --commit origin/main --fail-on stale',
    '<%= config.bin %> check --json | jq ".counts"',
  ]
  static override flags = {
    commit: Flags.string({description: 'check against this revision instead of the work tree'}),
    'changed-in': Flags.string({description: 'only anchors on files this revision range touched (a..b, or one commit)'}),
    'fail-on': Flags.option({options: ['stale'] as const, description: 'exit 1 when an anchor is changed or deleted'})(),
    'no-queue': Flags.boolean({
      description: 'fail (exit 6) instead of queueing the reports for `kb sync` when the server cannot be reached',
    }),
  }

  async run(): Promise<CheckReport> {
    const {flags} = this
    const co = await checkoutAt()
    if (co === null) throw new KbError('usage', 'kb check compares anchors with a git checkout: run it inside one')
    const rev = flags.commit ?? null
    // The revision and the range are asked of git at once.
    const [commit, touched] = await Promise.all([
      rev === null ? co.head : resolveCommit(co.root, rev),
      flags['changed-in'] ? pathsChangedIn(co.root, flags['changed-in']) : null,
    ])
    if (commit === null) throw new KbError('usage', 'this repository has no commit yet: commit, then run kb check')
    const report: CheckReport = {
      commit,
      rev: rev === null ? null : commit,
      changed_in: flags['changed-in'] ?? null,
      entries: [],
      counts: {current: 0, moved: 0, changed: 0, deleted: 0, skipped: 0},
      reported: 0,
      failed: [],
      stale: 0,
    }
    if (touched === null || touched.size > 0) await this.check(report, {root: co.root, gitDir: co.gitDir, rev: report.rev, commit, touched})
    report.counts = countStates(report.entries)
    report.stale = report.counts.changed + report.counts.deleted
    this.out(renderCheck(report, this.mode))
    for (const f of report.failed) this.warnLine(`could not report the check of ${shortId(f.id)}: ${f.error}`)
    if (flags['fail-on'] === 'stale' && report.stale > 0) process.exitCode = 1
    return report
  }

  private async check(
    report: CheckReport,
    o: {root: string; gitDir: string; rev: string | null; commit: string; touched: Set<string> | null},
  ): Promise<void> {
    const projectId = await this.projectId()
    if (projectId === null)
      throw new KbError(
        'not_found',
        'no project here: kb check checks the anchors of the project of this checkout; run `kb project join`, or pass --project',
      )
    const client = await this.client()
    const g = await gather(client, {baseUrl: this.baseUrl, projectId, gitDir: o.gitDir, touched: o.touched})
    // A checkout of an older or other branch says nothing about anchors made later: those are left alone.
    const skip = await notAncestors(
      o.root,
      o.commit,
      g.entries.flatMap((e) => e.anchors.flatMap((a) => (a.commit ? [a.commit] : []))),
    )
    const run = (list: CheckEntry[]): ReturnType<typeof checkAnchors> =>
      checkAnchors(
        list.map((e) => ({id: e.id, anchors: e.anchors})),
        {root: o.root, rev: o.rev, skip},
      )
    const outcomes = await run(g.entries)
    // What the index says has news is read afresh first: a verification elsewhere may have re-based it.
    const stale = g.entries.filter((e) => !g.fresh.has(e.id) && outcomes.get(e.id)!.some((x) => x.news)).map((e) => e.id)
    let entries = g.entries
    if (stale.length > 0) {
      const again = await g.reread(stale)
      for (const [id, x] of await run(again)) outcomes.set(id, x)
      const byNew = new Map(again.map((e) => [e.id, e]))
      entries = entries.flatMap((e) => (stale.includes(e.id) ? (byNew.has(e.id) ? [byNew.get(e.id)!] : []) : [e]))
    }
    const byId = new Map<string, CheckedEntry>()
    for (const e of entries) {
      const checked: CheckedEntry = {
        id: e.id,
        title: e.title,
        anchors: outcomes.get(e.id)!.map(checkedAnchor),
        freshness: e.freshness === 'fresh' || e.freshness === 'stale' ? e.freshness : null,
      }
      byId.set(e.id, checked)
      report.entries.push(checked)
    }
    await this.send(report, entries, outcomes, (id, answer) => {
      byId.get(id)!.freshness = answer.freshness.state
      remember(g.index, answer)
    })
    g.save()
  }

  /** Reports the entries whose check has news (8 in flight); `answered` gets each entry as the server answered. */
  private async send(
    report: CheckReport,
    entries: CheckEntry[],
    outcomes: Awaited<ReturnType<typeof checkAnchors>>,
    answered: (id: string, e: EntryFull) => void,
  ): Promise<void> {
    // Only what changed is sent: re-sending `changed` at every commit would rename the commit it changed in.
    const toSend = entries.filter((e) => outcomes.get(e.id)!.some((x) => x.news))
    let next = 0
    const worker = async (): Promise<void> => {
      while (next < toSend.length) {
        const e = toSend[next++]!
        const results = outcomes
          .get(e.id)!
          .filter((x) => x.news)
          .map((x) => x.result)
        try {
          const answer = await this.write<EntryFull>(
            {command: 'check', label: e.id, request: writeRequests.checkAnchors(e.id, {commit: report.commit, results})},
            this.flags['no-queue'],
          )
          report.reported++
          if (!isQueued(answer)) answered(e.id, answer)
        } catch (err) {
          if (err instanceof KbError && err.exitCode === ERROR_CODES.unreachable.exit) throw err
          report.failed.push({id: e.id, error: err instanceof Error ? err.message : String(err)})
        }
      }
    }
    await Promise.all(Array.from({length: Math.min(PARALLEL, toSend.length)}, worker))
  }
}
