/**
 * @module `kb show <id>`: one entry at a detail level; on a terminal, its Markdown rendered (src/cli/render/).
 */
import {Args, Flags} from '@oclif/core'
import type {EntryView} from '../src/shared/types.js'
import {KbCommand} from '../src/cli/base.js'
import {DETAIL_DEFAULT} from '../src/shared/contract.js'
import {detailFlag, detailOr, noPagerFlag} from '../src/cli/flags.js'
import {renderEntry} from '../src/cli/output/format.js'
import type {Opened} from '../src/cli/web/open.js'

export default class Show extends KbCommand<typeof Show> {
  static override summary = 'Show a knowledge entry'
  static override description =
    'Default detail: standard (or config default_detail). full adds comments, the thought chain, branches and the resolution.'
  static override examples = [
    '<%= config.bin %> show 0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7980',
    '<%= config.bin %> show 0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7980 --detail full --json',
    '<%= config.bin %> show 0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7980 --raw',
    '<%= config.bin %> show 0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7980 --web',
  ]
  static override args = {id: Args.string({description: 'entry id', required: true})}
  static override flags = {
    detail: detailFlag(),
    'no-pager': noPagerFlag,
    raw: Flags.boolean({description: 'print the Markdown as stored, not rendered, even on a terminal'}),
    web: Flags.boolean({description: "open the entry in the daemon's web view instead, signed in (as `kb open <id>`)"}),
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
    const client = await this.client()
    const {entry} = await client.getEntry(this.args.id, detailOr(this.flags.detail, DETAIL_DEFAULT.entry))
    const by = entry.superseded_by
    // The replacement's title, for the "superseded by" line; gone or hidden meanwhile, the id alone says it.
    const replacement = by
      ? await client.getEntry(by, 'summary').then(
          (x) => x.entry,
          () => undefined,
        )
      : undefined
    const r = await renderer
    const theme = r?.themeFromEnv()
    this.out(renderEntry(entry, this.mode, r ? (text, width) => r.renderMarkdownAnsi(text, {width, theme}) : undefined, replacement))
    return entry
  }
}
