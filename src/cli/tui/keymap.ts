/**
 * @module Every key binding of `kb browse` in one table: what a key does where, the short key line of
 * each place and the help text `?` shows. The reducer asks `actionOf(place, key)` instead of testing keys.
 */
import type {Key, SpecialKey} from './keys.js'

/** Where the keys go: the search box, the results, the full view, the help screen, the prompts. */
export type Place = 'search' | 'list' | 'full' | 'help' | 'text' | 'choice' | 'confirm'

export type Action =
  | 'up' | 'down' | 'pageUp' | 'pageDown' | 'first' | 'last'
  | 'open' | 'search' | 'back' | 'quit' | 'help' | 'refresh'
  | 'resolve' | 'comment' | 'fork' | 'publish' | 'openUrl' | 'copyId' | 'delete'
  | 'cycleScope' | 'toggleStatus'
  | 'nextLink' | 'prevLink'
  | 'toList' | 'clear' | 'backspace'
  | 'confirm' | 'cancel' | 'next' | 'prev' | 'yes' | 'no'

interface Binding {
  /** What the help screen shows, e.g. "↑ k"; empty: shares the row above. */
  keys: string
  action: Action
  help: string
  match: (k: Key) => boolean
}

const ch = (...chars: string[]) => (k: Key): boolean => k.name === 'char' && chars.includes(k.text)
const is = (...names: SpecialKey[]) => (k: Key): boolean => (names as string[]).includes(k.name)
const ctrl = (letter: string) => (k: Key): boolean => k.name === 'ctrl' && k.text === letter
const any = (...ms: ((k: Key) => boolean)[]) => (k: Key): boolean => ms.some((m) => m(k))

/** Ctrl-C leaves from anywhere, text fields and prompts included. */
export const isQuitKey = ctrl('c')

const quit: Binding = {keys: 'q Esc', action: 'quit', help: 'leave', match: any(ch('q'), is('escape'))}
const help: Binding = {keys: '?', action: 'help', help: 'this help', match: ch('?')}
const moves = (what: string, up: string, down: string): Binding[] => [
  {keys: '↑ k', action: 'up', help: up, match: any(is('up'), ch('k'))},
  {keys: '↓ j', action: 'down', help: down, match: any(is('down'), ch('j'))},
  {keys: what === 'entry' ? 'PgUp PgDn' : 'PgUp PgDn space', action: 'pageUp', help: 'a page up / down', match: is('pageUp')},
  {keys: '', action: 'pageDown', help: '', match: what === 'entry' ? is('pageDown') : any(is('pageDown'), ch(' '))},
  {keys: 'g G', action: 'first', help: what === 'entry' ? 'first / last entry' : 'top / bottom', match: any(is('home'), ch('g'))},
  {keys: '', action: 'last', help: '', match: any(is('end'), ch('G'))},
]
const entryActions: Binding[] = [
  {keys: 'r', action: 'resolve', help: 'resolve (with an optional note)', match: ch('r')},
  {keys: 'c', action: 'comment', help: 'comment (Tab picks the type)', match: ch('c')},
  {keys: 'f', action: 'fork', help: 'fork (give a title, or Enter for the default)', match: ch('f')},
  {keys: 'p', action: 'publish', help: 'publish to a wider scope', match: ch('p')},
  {keys: 'o', action: 'openUrl', help: "open the entry's url in the browser", match: ch('o')},
  {keys: 'y', action: 'copyId', help: "copy the entry's id", match: ch('y')},
  {keys: 'd', action: 'delete', help: 'delete (asks first)', match: ch('d')},
]

const TABLES: Record<Place, Binding[]> = {
  search: [
    {keys: '↓ Enter Tab', action: 'toList', help: 'go to the results', match: is('down', 'enter', 'tab')},
    {keys: 'Esc Ctrl-C', action: 'quit', help: 'leave', match: is('escape')},
    {keys: 'Ctrl-U', action: 'clear', help: 'clear the query', match: ctrl('u')},
    {keys: 'Backspace', action: 'backspace', help: 'delete a character', match: is('backspace', 'delete')},
  ],
  list: [
    ...moves('entry', 'previous entry', 'next entry'),
    {keys: 'Enter', action: 'open', help: 'open the entry in full (body, comments, thought chain, branches)', match: is('enter')},
    {keys: '/ Tab', action: 'search', help: 'back to the search box', match: any(is('tab'), ch('/'))},
    ...entryActions,
    {keys: 's', action: 'cycleScope', help: 'scope filter: all → private → project → global', match: ch('s')},
    {keys: 't', action: 'toggleStatus', help: 'status filter: all → open → resolved', match: ch('t')},
    help,
    quit,
  ],
  full: [
    ...moves('line', 'scroll up', 'scroll down'),
    {keys: 'Esc q Enter', action: 'back', help: 'back to the list', match: any(is('escape', 'enter'), ch('q'))},
    {keys: 'Ctrl-C', action: 'quit', help: 'leave', match: () => false},
    ...entryActions,
    help,
  ],
  help: [{keys: 'any key', action: 'back', help: 'back', match: () => true}],
  text: [
    {keys: 'Enter', action: 'confirm', help: 'confirm (an empty note is fine)', match: is('enter')},
    {keys: 'Esc', action: 'cancel', help: 'cancel', match: is('escape')},
    {keys: 'Tab ← →', action: 'next', help: 'pick the comment type / the scope to publish to', match: is('tab')},
    {keys: '', action: 'prev', help: '', match: is('backTab')},
    {keys: '', action: 'clear', help: '', match: ctrl('u')},
    {keys: '', action: 'backspace', help: '', match: is('backspace', 'delete')},
  ],
  choice: [
    {keys: '', action: 'next', help: '', match: is('right', 'tab')},
    {keys: '', action: 'prev', help: '', match: is('left', 'backTab')},
    {keys: '', action: 'confirm', help: '', match: is('enter')},
    {keys: '', action: 'cancel', help: '', match: is('escape')},
  ],
  confirm: [
    {keys: 'y n', action: 'yes', help: 'answer the delete question', match: ch('y', 'Y')},
    {keys: '', action: 'no', help: '', match: any(ch('n', 'N'), is('enter'))},
    {keys: '', action: 'cancel', help: '', match: is('escape')},
  ],
}

export function actionOf(place: Place, k: Key): Action | null {
  return TABLES[place].find((b) => b.match(k))?.action ?? null
}

/** The key line of each place. */
export const KEY_LINES: Record<Place, string> = {
  search: 'type to search  ↓/Enter/Tab results  Esc quit',
  list: '↑↓/jk move  Enter open  r resolve  c comment  f fork  p publish  o url  y copy  d delete  s scope  t status  / search  q quit',
  full: '↑↓/jk scroll  PgUp/PgDn  g/G  r c f p o y d act  Esc back',
  help: 'any key: back',
  text: '',
  choice: '',
  confirm: '',
}

const TITLES: [Place, string][] = [
  ['search', 'Search box'],
  ['list', 'Results list'],
  ['full', 'Full entry'],
  ['text', 'Prompts'],
]

/** The help screen's sections: [keys, what they do]. Bindings with empty `keys` share the row above. */
export function helpSections(): {title: string; rows: [string, string][]}[] {
  return TITLES.map(([place, title]) => ({
    title,
    rows: [
      ...(place === 'search' ? [['letters', 'edit the query (results follow as you type)'] as [string, string]] : []),
      ...TABLES[place].filter((b) => b.keys !== '').map((b): [string, string] => [b.keys, b.help]),
      ...(place === 'text' ? [['y n', 'answer the delete question'] as [string, string]] : []),
    ],
  }))
}
