/**
 * @module `kb show <id>`: one entry at a detail level — for people the full view, with its newest comments and its
 * project's name (docs/cli.md, "kb show ID"); on a terminal, its Markdown rendered (src/cli/render/).
 */
import {Flags} from '@oclif/core'
import type {ApiClient} from '../src/shared/client.js'
import {KbError} from '../src/shared/errors.js'
import type {Comment, EntryFull, EntryView} from '../src/shared/types.js'
import {KbCommand} from '../src/cli/base.js'
import {DETAIL_DEFAULT, LIMIT_MAX} from '../src/shared/contract.js'
import {detailFlag, entryIdArg, noPagerFlag} from '../src/cli/flags.js'
import {detailOr} from '../src/cli/flag-values.js'
import {renderEntry} from '../src/cli/output/format.js'
import type {Opened} from '../src/cli/web/open.js'

/** How many of the newest comments `kb show` prints when --comments is not given. */
const COMMENTS_SHOWN = 3

export default class Show extends KbCommand<typeof Show> {
  static override summary = 'Show a knowledge entry'
  static override description =
    'On a terminal the full detail: the resolution and its note, the newest comments (--comments N or all), the thought chain and branches, and the project by name. ' +
    'Piped and with --json, the standard detail unless --detail, config default_detail or --comments says otherwise.'
  static override examples = [
    '<%= config.bin %> show 0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7980',
    '<%= config.bin %> show 0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7980 --detail full --json',
    '<%= config.bin %> show 0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7980 --raw',
    '<%= config.bin %> show 0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7980 --web',
  ]
  static override args = {id: entryIdArg}
  static override entryArgs = ['id']
  static override flags = {
    detail: detailFlag(),
    'no-pager': noPagerFlag,
    raw: Flags.boolean({description: 'print the Markdown as stored, not rendered, even on a terminal'}),
    web: Flags.boolean({description: "open the entry in the daemon's web view instead, signed in (as `kb open <id>`)"}),
    comments: Flags.string({
      description: `how many of the newest comments to show: a number or all (default ${COMMENTS_SHOWN})`,
      helpValue: 'N|all',
    }),
  }
  static override pager = true

  async run(): Promise<EntryView | Opened> {
    if (this.flags.web) {
      const {openedText, openWebView} = await import('../src/cli/web/open.js')
      const opened = await openWebView(await this.client(), this.args.id, {print: false})
      this.out(openedText(opened, this.mode.tty))
      return opened
    }
    // Rendered only on a terminal with colours (not piped, not NO_COLOR, not --json, not --raw). The renderer
    // began to load before oclif did (bin/run.js, src/cli/render/preload.ts): this awaits that same import.
    const renderer = this.mode.color && !this.flags.raw && !this.jsonEnabled() ? import('../src/cli/render/markdown.js') : undefined
    const shown = commentsShown(this.flags.comments)
    const client = await this.client()
    const json = this.jsonEnabled()
    // People at a terminal get the full view (the resolution and the comments); pipes and --json keep the documented
    // default, as scripts read it, unless --comments asks for comments.
    const detail = detailOr(this.flags.detail, this.mode.tty || this.flags.comments !== undefined ? 'full' : DETAIL_DEFAULT.entry)
    const {entry} = await client.getEntry(this.args.id, detail)
    const full = entry as Partial<EntryFull>
    const by = entry.superseded_by
    const [replacement, project, comments] = await Promise.all([
      // The replacement's title, for the "superseded by" line; gone or hidden meanwhile, the id alone says it.
      by
        ? client.getEntry(by, 'summary').then(
            (x) => x.entry,
            () => undefined,
          )
        : undefined,
      // The project's name; one the caller may not read keeps its id.
      !json && full.project_id
        ? client.getProject(full.project_id).then(
            (p) => p.name,
            () => undefined,
          )
        : undefined,
      shown === 'all' && full.comments_truncated ? everyComment(client, entry.id) : full.comments,
    ])
    const view: EntryView = comments ? ({...entry, ...newest(comments, shown, full.comment_count)} as EntryView) : entry
    if (json) return view
    const r = await renderer
    const theme = r?.themeFromEnv()
    this.out(
      renderEntry(view, this.mode, r ? (text, width) => r.renderMarkdownAnsi(text, {width, theme}) : undefined, replacement, {
        ...(project ? {project} : {}),
      }),
    )
    return view
  }
}

function commentsShown(flag: string | undefined): number | 'all' {
  if (flag === undefined) return COMMENTS_SHOWN
  if (flag === 'all') return 'all'
  const n = Number(flag)
  if (!Number.isInteger(n) || n < 0) throw new KbError('usage', `--comments takes a number of comments or all, not "${flag}"`)
  return n
}

/** The newest `shown` of `comments` (oldest first), and whether the entry has more than they are. */
function newest(comments: Comment[], shown: number | 'all', total = comments.length): Partial<EntryFull> {
  const kept = shown === 'all' ? comments : comments.slice(Math.max(0, comments.length - shown))
  return {comments: kept, comments_truncated: kept.length < total}
}

/** Every comment of an entry, oldest first, a page at a time. */
async function everyComment(client: ApiClient, id: string): Promise<Comment[]> {
  const all: Comment[] = []
  let cursor: string | undefined
  do {
    const page = await client.listComments(id, {limit: LIMIT_MAX, ...(cursor ? {cursor} : {})})
    all.push(...page.items)
    cursor = page.next_cursor ?? undefined
  } while (cursor)
  return all
}
