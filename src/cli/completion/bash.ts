/**
 * @module What kb adds to @oclif/plugin-autocomplete's bash script: a flag's choices (`--scope <TAB>`), short
 * flags (`-L`), and a command's flags after its arguments — a table made from the commands oclif knows and a
 * function that answers from it and leaves the rest (commands, subcommands) to the plugin's (docs/cli.md,
 * "Shell completion").
 */
import type {CompletionCommand} from './fish.js'

/** bash single-quoted: a `'` ends the quote, so it is written `'\''`. */
function quote(s: string): string {
  return `'${s.replaceAll("'", "'\\''")}'`
}

/**
 * One line per visible flag: `id|--name|-c|values`, the id oclif's (`api-key:create`); values are the choices
 * separated by spaces, `~` for an option that takes any value, empty for a boolean.
 */
function flagTable(commands: CompletionCommand[]): string {
  const lines: string[] = []
  for (const c of commands.filter((x) => !x.hidden).sort((a, b) => a.id.localeCompare(b.id))) {
    for (const f of Object.values(c.flags).filter((x) => !x.hidden)) {
      const values = f.type === 'option' ? (f.options?.join(' ') ?? '~') : ''
      lines.push(`${c.id}|--${f.name}|${f.char ? `-${f.char}` : ''}|${values}`)
      if (f.type === 'boolean' && f.allowNo) lines.push(`${c.id}|--no-${f.name}||`)
    }
  }
  return lines.join('\n')
}

/**
 * The bash appended to the plugin's completion file: `_<bin>_autocomplete_flags` finds the command typed so far
 * (the longest run of leading words naming one), answers a flag's value or a flag, and otherwise calls the
 * plugin's `_<bin>_autocomplete`; it replaces the plugin's function as `<bin>`'s completion.
 */
export function bashFlagCompletion(bin: string, commands: CompletionCommand[]): string {
  const name = bin.replace(/[^A-Za-z0-9_]/g, '_')
  const ids = commands.filter((c) => !c.hidden).map((c) => c.id)
  return `
# ${bin}: a flag's choices, short flags, flags after arguments (docs/cli.md, "Shell completion").
__${name}_flag_table=${quote(flagTable(commands))}
__${name}_ids=${quote(` ${ids.join(' ')} `)}
_${name}_autocomplete_flags()
{
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="" cmd="" typed="" i id long short values opts=""
  (( COMP_CWORD > 1 )) && prev="\${COMP_WORDS[COMP_CWORD-1]}"
  # readline splits --flag=value at '=': the flag is then the word before the '='.
  if [[ "$cur" == "=" ]]; then cur=""; prev="\${COMP_WORDS[COMP_CWORD-1]}"
  elif [[ "$prev" == "=" ]] && (( COMP_CWORD > 2 )); then prev="\${COMP_WORDS[COMP_CWORD-2]}"; fi
  for (( i = 1; i < COMP_CWORD; i++ )); do
    [[ "\${COMP_WORDS[i]}" == -* ]] && break
    typed="\${typed:+$typed:}\${COMP_WORDS[i]}"
    [[ "$__${name}_ids" == *" $typed "* ]] && cmd="$typed"
  done
  if [[ -n "$cmd" ]]; then
    while IFS='|' read -r id long short values; do
      [[ "$id" == "$cmd" ]] || continue
      if [[ -n "$values" && ( "$prev" == "$long" || ( -n "$short" && "$prev" == "$short" ) ) ]]; then
        if [[ "$values" == "~" ]]; then COMPREPLY=($(compgen -f -- "$cur")); else COMPREPLY=($(compgen -W "$values" -- "$cur")); fi
        return 0
      fi
      opts="$opts $long $short"
    done <<< "$__${name}_flag_table"
    if [[ "$cur" == -* ]]; then
      COMPREPLY=($(compgen -W "$opts" -- "$cur"))
      return 0
    fi
  fi
  _${name}_autocomplete "$@"
}
complete -F _${name}_autocomplete_flags ${bin}
`
}
