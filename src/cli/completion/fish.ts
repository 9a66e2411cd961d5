/**
 * @module Completion for fish, which @oclif/plugin-autocomplete (bash, zsh) does not cover: a script of
 * `complete` lines made from the commands, topics and flags oclif knows (docs/cli.md, "Shell completion").
 * A small fish function finds the command typed so far (the longest run of words that names a topic or a
 * command), so `kb api-key <TAB>` offers create/list/revoke and `kb show ID --<TAB>` offers show's flags.
 */

interface CompletionFlag {
  name: string
  char?: string
  type: 'boolean' | 'option'
  options?: readonly string[]
  /** A boolean that also takes `--no-<name>`. */
  allowNo?: boolean
  summary?: string
  description?: string
  hidden?: boolean
}

export interface CompletionCommand {
  /** oclif id, topics separated by ':' (`api-key:create`). */
  id: string
  summary?: string
  description?: string
  hidden?: boolean
  flags: Record<string, CompletionFlag>
}

export interface CompletionTopic {
  name: string
  description?: string
  hidden?: boolean
}

/** fish single-quoted: only `\` and `'` are special inside. */
function quote(s: string): string {
  return `'${s.replace(/[\\']/g, (c) => `\\${c}`)}'`
}

/** The first line of a help text, short enough for fish's description column (oclif's `<%= config.bin %>` filled in). */
function describe(text: string | undefined, bin: string): string {
  const line = (text ?? '').split('\n')[0]!.replaceAll('<%= config.bin %>', bin).trim()
  return line.length > 80 ? `${line.slice(0, 79)}…` : line
}

/** The fish script completing `bin`: subcommands under each topic, then each command's flags. */
export function fishCompletion(bin: string, commands: CompletionCommand[], topics: CompletionTopic[]): string {
  const visible = commands.filter((c) => !c.hidden).sort((a, b) => a.id.localeCompare(b.id))
  const words = (id: string): string => id.split(':').join(' ')
  const fn = `__${bin.replace(/[^A-Za-z0-9_]/g, '_')}_command`
  const at = `__${bin.replace(/[^A-Za-z0-9_]/g, '_')}_at`
  const known = new Set<string>()
  for (const c of visible) {
    const parts = c.id.split(':')
    for (let i = 1; i <= parts.length; i++) known.add(parts.slice(0, i).join(' '))
  }
  const lines = [
    `# fish completion for ${bin}; made by \`${bin} autocomplete fish\`.`,
    `function ${fn} --description 'the ${bin} command or topic typed so far'`,
    `  set -l known ${[...known].sort().map(quote).join(' ')}`,
    '  set -l words (commandline -opc)',
    '  set -e words[1]',
    '  set -l cmd',
    '  for w in $words',
    "    string match -q -- '-*' $w; and continue",
    "    set -l next (string join ' ' -- $cmd $w)",
    '    contains -- $next $known; or break',
    '    set cmd $cmd $w',
    '  end',
    "  string join ' ' -- $cmd",
    'end',
    `function ${at} --argument-names want --description 'is the ${bin} command or topic typed so far this one'`,
    `  set -l have (${fn})`,
    '  test "$have" = "$want"',
    'end',
    `complete -c ${bin} -f`,
  ]
  // What may follow each prefix: the next word of every command under it, with a topic's or command's summary.
  const topicText = new Map(topics.filter((t) => !t.hidden).map((t) => [t.name.split(':').join(' '), t.description]))
  const next = new Map<string, Map<string, string>>()
  for (const c of visible) {
    const parts = c.id.split(':')
    for (let i = 0; i < parts.length; i++) {
      const prefix = parts.slice(0, i).join(' ')
      const word = parts[i]!
      const full = parts.slice(0, i + 1).join(' ')
      const text = i === parts.length - 1 ? describe(c.summary ?? c.description, bin) : describe(topicText.get(full), bin)
      if (!next.has(prefix)) next.set(prefix, new Map())
      if (!next.get(prefix)!.has(word)) next.get(prefix)!.set(word, text)
    }
  }
  for (const [prefix, options] of [...next].sort(([a], [b]) => a.localeCompare(b))) {
    for (const [word, text] of options)
      lines.push(`complete -c ${bin} -n ${quote(`${at} ${quote(prefix)}`)} -a ${quote(word)} -d ${quote(text)}`)
  }
  for (const c of visible) {
    const cond = quote(`${at} ${quote(words(c.id))}`)
    for (const f of Object.values(c.flags)
      .filter((x) => !x.hidden)
      .sort((a, b) => a.name.localeCompare(b.name))) {
      let line = `complete -c ${bin} -n ${cond} -l ${f.name}`
      if (f.char) line += ` -s ${f.char}`
      // An option with choices offers them; one without takes any value, a file name included.
      if (f.type === 'option') line += f.options ? ` -x -a ${quote(f.options.join(' '))}` : ' -r -F'
      lines.push(`${line} -d ${quote(describe(f.summary ?? f.description, bin))}`)
    }
  }
  return lines.join('\n') + '\n'
}
