/**
 * @module `kb autocomplete [bash|zsh]`: @oclif/plugin-autocomplete's command, run as it is, after which kb appends
 * its flag completion (a flag's choices, short flags) to the bash script the plugin wrote into its cache, which the
 * plugin's bash script lacks (docs/cli.md, "Shell completion"). zsh's script has both already.
 */
import {appendFile} from 'node:fs/promises'
import {join} from 'node:path'
import {Args, Command, Flags} from '@oclif/core'
import {bashFlagCompletion} from '../../src/cli/completion/bash.js'

export default class Autocomplete extends Command {
  // The plugin's own arguments, flags and texts: this command stands in for it (oclif runs kb's over a plugin's).
  static override description = 'Display autocomplete installation instructions.'
  static override args = {
    shell: Args.string({description: 'Shell type', options: ['zsh', 'bash', 'powershell'], required: false}),
  }
  static override flags = {
    'refresh-cache': Flags.boolean({char: 'r', description: 'Refresh cache (ignores displaying instructions)'}),
  }
  static override examples = [
    '$ <%= config.bin %> autocomplete',
    '$ <%= config.bin %> autocomplete bash',
    '$ <%= config.bin %> autocomplete zsh',
    '$ <%= config.bin %> autocomplete --refresh-cache',
  ]

  async run(): Promise<void> {
    const plugin = this.config.plugins.get('@oclif/plugin-autocomplete')
    if (!plugin) this.error('@oclif/plugin-autocomplete is missing from this kb installation')
    const original = await plugin.findCommand('autocomplete', {must: true})
    // The plugin writes its cache first (and, without --refresh-cache, prints the steps, which source that cache).
    await original.run(this.argv, this.config)
    const file = join(this.config.cacheDir, 'autocomplete', 'functions', 'bash', `${this.config.bin}.bash`)
    await appendFile(file, bashFlagCompletion(this.config.bin, this.config.commands))
  }
}
