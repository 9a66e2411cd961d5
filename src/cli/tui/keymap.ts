/**
 * @module Every key binding of `kb browse` in one table: what the key does in which focus, and the help
 * text `?` shows. Components ask `listAction`/`searchAction`/`detailAction` instead of testing keys.
 */
import type {Key} from 'ink'

export type ListAction =
  | 'up' | 'down' | 'pageUp' | 'pageDown' | 'first' | 'last' | 'open' | 'search'
  | 'resolve' | 'comment' | 'fork' | 'publish' | 'openUrl' | 'copyId' | 'delete'
  | 'cycleScope' | 'toggleStatus' | 'help' | 'quit'

export type SearchAction = 'toList' | 'quit' | 'backspace' | 'clear'
export type DetailAction = 'up' | 'down' | 'pageUp' | 'pageDown' | 'first' | 'last' | 'close' | 'quit'

interface Binding<A> {
  /** What the help screen shows, e.g. "↑ k". */
  keys: string
  action: A
  help: string
  match: (input: string, key: Key) => boolean
}

const ch = (...chars: string[]) => (input: string, key: Key): boolean => !key.ctrl && !key.meta && chars.includes(input)

export const LIST_KEYS: Binding<ListAction>[] = [
  {keys: '↑ k', action: 'up', help: 'previous entry', match: (i, k) => k.upArrow || ch('k')(i, k)},
  {keys: '↓ j', action: 'down', help: 'next entry', match: (i, k) => k.downArrow || ch('j')(i, k)},
  {keys: 'PgUp PgDn', action: 'pageUp', help: 'a page up / down', match: (_, k) => k.pageUp},
  {keys: '', action: 'pageDown', help: '', match: (_, k) => k.pageDown},
  {keys: 'g G', action: 'first', help: 'first / last entry', match: (i, k) => k.home || ch('g')(i, k)},
  {keys: '', action: 'last', help: '', match: (i, k) => k.end || ch('G')(i, k)},
  {keys: 'Enter', action: 'open', help: 'open the entry in full (body, comments, thought chain, branches)', match: (_, k) => k.return},
  {keys: '/ Tab', action: 'search', help: 'back to the search box', match: (i, k) => k.tab || ch('/')(i, k)},
  {keys: 'r', action: 'resolve', help: 'resolve (with an optional note)', match: ch('r')},
  {keys: 'c', action: 'comment', help: 'comment (Tab picks the type)', match: ch('c')},
  {keys: 'f', action: 'fork', help: 'fork (give a title, or Enter for the default)', match: ch('f')},
  {keys: 'p', action: 'publish', help: 'publish to a wider scope', match: ch('p')},
  {keys: 'o', action: 'openUrl', help: "open the entry's url in the browser", match: ch('o')},
  {keys: 'y', action: 'copyId', help: "copy the entry's id", match: ch('y')},
  {keys: 'd', action: 'delete', help: 'delete (asks first)', match: ch('d')},
  {keys: 's', action: 'cycleScope', help: 'scope filter: all → private → project → global', match: ch('s')},
  {keys: 't', action: 'toggleStatus', help: 'status filter: all → open → resolved', match: ch('t')},
  {keys: '?', action: 'help', help: 'this help', match: ch('?')},
  {keys: 'q Esc', action: 'quit', help: 'leave', match: (i, k) => k.escape || ch('q')(i, k) || (k.ctrl && i === 'c')},
]

export const SEARCH_KEYS: Binding<SearchAction>[] = [
  {keys: '↓ Enter Tab', action: 'toList', help: 'go to the results', match: (_, k) => k.downArrow || k.return || k.tab},
  {keys: 'Esc Ctrl-C', action: 'quit', help: 'leave', match: (i, k) => k.escape || (k.ctrl && i === 'c')},
  {keys: 'Ctrl-U', action: 'clear', help: 'clear the query', match: (i, k) => k.ctrl && i === 'u'},
  {keys: 'Backspace', action: 'backspace', help: 'delete a character', match: (_, k) => k.backspace || k.delete},
]

export const DETAIL_KEYS: Binding<DetailAction>[] = [
  {keys: '↑ k', action: 'up', help: 'scroll up', match: (i, k) => k.upArrow || ch('k')(i, k)},
  {keys: '↓ j', action: 'down', help: 'scroll down', match: (i, k) => k.downArrow || ch('j')(i, k)},
  {keys: 'PgUp PgDn space', action: 'pageUp', help: 'a page up / down', match: (_, k) => k.pageUp},
  {keys: '', action: 'pageDown', help: '', match: (i, k) => k.pageDown || ch(' ')(i, k)},
  {keys: 'g G', action: 'first', help: 'top / bottom', match: (i, k) => k.home || ch('g')(i, k)},
  {keys: '', action: 'last', help: '', match: (i, k) => k.end || ch('G')(i, k)},
  {keys: 'Esc q Enter', action: 'close', help: 'back to the list', match: (i, k) => k.escape || k.return || ch('q')(i, k)},
  {keys: 'Ctrl-C', action: 'quit', help: 'leave', match: (i, k) => k.ctrl && i === 'c'},
]

/** In the prompts (resolution note, comment, fork title, publish, delete). */
export const PROMPT_KEYS: {keys: string; help: string}[] = [
  {keys: 'Enter', help: 'confirm (an empty note is fine)'},
  {keys: 'Esc', help: 'cancel'},
  {keys: 'Tab ← →', help: 'pick the comment type / the scope to publish to'},
  {keys: 'y n', help: 'answer the delete question'},
]

function find<A>(table: Binding<A>[], input: string, key: Key): A | null {
  return table.find((b) => b.match(input, key))?.action ?? null
}

export const listAction = (input: string, key: Key): ListAction | null => find(LIST_KEYS, input, key)
export const searchAction = (input: string, key: Key): SearchAction | null => find(SEARCH_KEYS, input, key)
export const detailAction = (input: string, key: Key): DetailAction | null => find(DETAIL_KEYS, input, key)

/** The help screen's rows: [keys, what they do], by focus. Bindings with an empty `keys` share the row above. */
export function helpSections(): {title: string; rows: [string, string][]}[] {
  const rows = <A>(t: Binding<A>[]): [string, string][] => t.filter((b) => b.keys !== '').map((b) => [b.keys, b.help])
  return [
    {title: 'Search box', rows: [['letters', 'edit the query (results follow as you type)'], ...rows(SEARCH_KEYS)]},
    {title: 'Results list', rows: rows(LIST_KEYS)},
    {title: 'Full entry', rows: rows(DETAIL_KEYS)},
    {title: 'Prompts', rows: PROMPT_KEYS.map((p) => [p.keys, p.help] as [string, string])},
  ]
}
