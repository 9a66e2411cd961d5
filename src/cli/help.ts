/**
 * @module kb's help class (package.json `oclif.helpClass`): oclif's, except that a root command which is also a topic
 * is listed once, under TOPICS — `kb autocomplete` (the completion plugin's command, run by kb's stand-in) and
 * `kb autocomplete fish` (ours) made it appear twice (docs/cli.md, "Shell completion"). Loaded only to print help.
 */
import {Help, type Command} from '@oclif/core'

export class KbHelp extends Help {
  protected override formatCommands(commands: Command.Loadable[]): string {
    const topics = new Set(this.sortedTopics.map((t) => t.name))
    return super.formatCommands(commands.filter((c) => !topics.has(c.id)))
  }
}
