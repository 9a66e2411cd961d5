/**
 * @module `kb autocomplete fish`: prints the fish completion script (bash and zsh come from
 * @oclif/plugin-autocomplete as `kb autocomplete bash|zsh`; it has no fish).
 */
import {Command} from '@oclif/core'
import {fishCompletion} from '../../src/cli/completion/fish.js'

export default class AutocompleteFish extends Command {
  static override summary = 'Print the fish completion script'
  static override description =
    'Save it where fish looks for completions: kb autocomplete fish > ~/.config/fish/completions/kb.fish. Run it again after upgrading kb.'
  static override examples = ['<%= config.bin %> autocomplete fish > ~/.config/fish/completions/<%= config.bin %>.fish']

  async run(): Promise<void> {
    process.stdout.write(fishCompletion(this.config.bin, this.config.commands, this.config.topics))
  }
}
