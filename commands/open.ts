/**
 * @module `kb open [id]`: the web view in the browser, already signed in through a one-time link (docs/web.md).
 */
import {Args, Flags} from '@oclif/core'
import {KbCommand} from '../src/cli/base.js'
import {openedText, openWebView, type Opened} from '../src/cli/web/open.js'

export default class Open extends KbCommand<typeof Open> {
  static override summary = "Open an entry (or the search page) in the daemon's web view, signed in"
  static override description =
    'Signs the browser in through a one-time link (single use, valid a minute) made with your API key; the key never appears in a URL. ' +
    'Without a display, or with --print, prints the link instead.'
  static override examples = [
    '<%= config.bin %> open',
    '<%= config.bin %> open 0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7980',
    '<%= config.bin %> open --print',
  ]
  static override args = {
    id: Args.string({description: 'entry id, or a short id: its start or end (default: the search page)', required: false}),
  }
  static override entryArgs = ['id']
  static override flags = {
    print: Flags.boolean({description: 'print the one-time link instead of opening a browser'}),
  }

  async run(): Promise<Opened> {
    const result = await openWebView(await this.client(), this.args.id, {print: this.flags.print})
    this.out(openedText(result, this.mode.tty))
    return result
  }
}
