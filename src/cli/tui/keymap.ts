/**
 * @module Every key binding of `kb browse` in one table: what a key does where, the short key line of
 * each place and the help text `?` shows. The reducer asks `actionOf(place, key)` instead of testing keys.
 */
import type {Key, SpecialKey} from './keys.js'
import {cut, pad} from './text.js'

/** Where the keys go: the search box, the results, the full view, the help screen, the prompts. */
export type Place = 'search' | 'list' | 'full' | 'help' | 'text' | 'choice' | 'confirm' | 'review'

export type Action =
  | 'up'
  | 'down'
  | 'pageUp'
  | 'pageDown'
  | 'first'
  | 'last'
  | 'open'
  | 'search'
  | 'back'
  | 'quit'
  | 'help'
  | 'refresh'
  | 'resolve'
  | 'comment'
  | 'fork'
  | 'publish'
  | 'openUrl'
  | 'copyId'
  | 'delete'
  | 'verify'
  | 'flag'
  | 'edit'
  | 'cycleScope'
  | 'toggleStatus'
  | 'nextLink'
  | 'prevLink'
  | 'toList'
  | 'clear'
  | 'backspace'
  | 'confirm'
  | 'cancel'
  | 'next'
  | 'prev'
  | 'yes'
  | 'no'
  | 'redact'
  | 'keep'
  | 'history'
  | 'reviewQueue'

interface Binding {
  /** What the help screen shows, e.g. "↑ k"; empty: shares the row above. */
  keys: string
  action: Action
  help: string
  match: (k: Key) => boolean
}

const ch =
  (...chars: string[]) =>
  (k: Key): boolean =>
    k.name === 'char' && chars.includes(k.text)
const is =
  (...names: SpecialKey[]) =>
  (k: Key): boolean =>
    (names as string[]).includes(k.name)
const ctrl =
  (letter: string) =>
  (k: Key): boolean =>
    k.name === 'ctrl' && k.text === letter
const any =
  (...ms: ((k: Key) => boolean)[]) =>
  (k: Key): boolean =>
    ms.some((m) => m(k))

/** Ctrl-C leaves from anywhere, text fields and prompts included. */
export const isQuitKey = ctrl('c')

const quit: Binding = {keys: 'q', action: 'quit', help: 'leave kb browse (Ctrl-C too, from anywhere)', match: ch('q')}
const help: Binding = {keys: '?', action: 'help', help: 'this help (Esc returns)', match: ch('?')}
const moves = (what: string): Binding[] => [
  {keys: '↑ k', action: 'up', help: `previous ${what}`, match: any(is('up'), ch('k'))},
  {keys: '↓ j', action: 'down', help: `next ${what}`, match: any(is('down'), ch('j'))},
  {keys: 'PgUp PgDn', action: 'pageUp', help: 'a page up / down (also Ctrl-B Ctrl-F, space)', match: any(is('pageUp'), ctrl('b'))},
  {keys: '', action: 'pageDown', help: '', match: any(is('pageDown'), ctrl('f'), ch(' '))},
  {
    keys: 'g G',
    action: 'first',
    help: what === 'entry' ? 'first / last entry (G loads the rest)' : 'top / bottom',
    match: any(is('home'), ch('g')),
  },
  {keys: '', action: 'last', help: '', match: any(is('end'), ch('G'))},
]
const entryActions: Binding[] = [
  {keys: 'r', action: 'resolve', help: 'resolve (optional note); on a resolved entry: reopen', match: ch('r')},
  {keys: 'e', action: 'edit', help: 'edit in $EDITOR (merged with changes made meanwhile)', match: ch('e')},
  {keys: 'c', action: 'comment', help: 'comment (Tab picks the type; a paste is kept whole)', match: ch('c')},
  {keys: 'f', action: 'fork', help: 'fork (a title, or Enter for "<title> (fork)")', match: ch('f')},
  {keys: 'p', action: 'publish', help: 'publish to a wider scope (secrets or personal data shown first)', match: ch('p')},
  {keys: 'o', action: 'openUrl', help: "open the entry's url (http/https) in the browser", match: ch('o')},
  {keys: 'y', action: 'copyId', help: "copy the entry's id", match: ch('y')},
  {keys: 'd', action: 'delete', help: 'delete (asks first, naming the entry)', match: ch('d')},
  {keys: 'V', action: 'verify', help: 'verify: it still holds (optional note); fresh again', match: ch('V')},
  {keys: 'F', action: 'flag', help: 'flag it (Tab picks the reason) or withdraw your flag', match: ch('F')},
  {keys: 'R', action: 'refresh', help: 'refresh from the server', match: ch('R')},
]

const TABLES: Record<Place, Binding[]> = {
  search: [
    {keys: '↓ Enter Tab', action: 'toList', help: 'go to the results', match: is('down', 'enter', 'tab')},
    {keys: 'Esc', action: 'back', help: 'back to the results, the query as it was', match: is('escape')},
    {keys: 'Ctrl-U', action: 'clear', help: 'clear the query', match: ctrl('u')},
    {keys: 'Backspace', action: 'backspace', help: 'delete a character', match: is('backspace', 'delete')},
  ],
  list: [
    ...moves('entry'),
    {keys: 'Enter', action: 'open', help: 'open the entry in full', match: is('enter')},
    {keys: '/ Tab', action: 'search', help: 'to the search box', match: any(is('tab'), ch('/'))},
    ...entryActions,
    {keys: 's', action: 'cycleScope', help: 'scope filter: all → private → project → global', match: ch('s')},
    {keys: 't', action: 'toggleStatus', help: 'status filter: all → open → resolved', match: ch('t')},
    {keys: '!', action: 'reviewQueue', help: 'review queue, most used first (! again: all entries)', match: ch('!')},
    {keys: 'Esc', action: 'back', help: 'clear the query (Esc never quits)', match: is('escape')},
    help,
    quit,
  ],
  full: [
    ...moves('line'),
    {
      keys: 'Tab S-Tab',
      action: 'nextLink',
      help: 'next / previous link (superseded by, forked from, branches)',
      match: is('tab'),
    },
    {keys: '', action: 'prevLink', help: '', match: is('backTab')},
    {keys: 'Enter', action: 'open', help: 'open the highlighted entry', match: is('enter')},
    {keys: 'h', action: 'history', help: 'history: who changed what, through what (h again: the entry)', match: ch('h')},
    ...entryActions,
    {keys: 'Esc', action: 'back', help: 'back: to the entry a link came from, then the results', match: is('escape')},
    help,
    quit,
  ],
  help: [
    ...moves('line'),
    {keys: 'Esc ? Enter', action: 'back', help: 'back to where you were', match: any(is('escape', 'enter'), ch('?'))},
    quit,
  ],
  text: [
    {keys: 'Enter', action: 'confirm', help: 'confirm (an empty note is fine)', match: is('enter')},
    {keys: 'Esc', action: 'cancel', help: 'cancel', match: is('escape')},
    {keys: 'Tab S-Tab', action: 'next', help: 'comment type (note → … → question) or flag reason', match: is('tab')},
    {keys: '', action: 'prev', help: '', match: is('backTab')},
    {keys: 'Ctrl-U', action: 'clear', help: 'clear the text', match: ctrl('u')},
    {keys: 'Backspace', action: 'backspace', help: 'delete a character', match: is('backspace', 'delete')},
  ],
  choice: [
    {keys: '← → Tab', action: 'next', help: 'pick the scope', match: is('right', 'tab')},
    {keys: '', action: 'prev', help: '', match: is('left', 'backTab')},
    {keys: 'Enter', action: 'confirm', help: 'publish', match: is('enter')},
    {keys: 'Esc', action: 'cancel', help: 'cancel', match: is('escape')},
    help,
    quit,
  ],
  review: [
    {keys: 'r', action: 'redact', help: 'replace each finding with [REDACTED:<kind>] and go on', match: ch('r')},
    {keys: 'k', action: 'keep', help: 'keep as written, recorded on the entry (when all are listed)', match: ch('k')},
    {keys: 's Esc', action: 'cancel', help: 'stop: nothing is changed', match: any(ch('s'), is('escape'))},
    ...moves('line'),
    help,
    quit,
  ],
  confirm: [
    {keys: 'y', action: 'yes', help: 'yes: delete / reopen', match: ch('y', 'Y')},
    {keys: 'n Enter Esc', action: 'no', help: 'no: keep it as it is', match: any(ch('n', 'N'), is('enter', 'escape'))},
    help,
    quit,
  ],
}

export function actionOf(place: Place, k: Key): Action | null {
  return TABLES[place].find((b) => b.match(k))?.action ?? null
}

/** The key line of each place: what fits 80 columns; `?` shows the rest. */
export const KEY_LINES: Record<Place, string> = {
  search: 'type to search  ↓/Enter results  Esc back  Ctrl-U clear  Ctrl-C quit',
  list: '↑↓ move  Enter open  e r c f p o y d V F act  s t filter  /find  ? more  q quit',
  full: '↑↓ scroll  Tab link  e r c f p o y d V F R act  Esc back  ? more  q quit',
  help: '↑↓ PgUp PgDn scroll  Esc back  q quit',
  text: 'Enter confirm  Esc cancel  Ctrl-C quit',
  choice: '←/→ choose  Enter publish  Esc cancel  q quit',
  confirm: 'y yes  n/Enter/Esc no  q quit',
  review: 'r redact  k keep as written (recorded)  s/Esc stop  ↑↓ scroll  q quit',
}

const TITLES: [Place, string][] = [
  ['list', 'Results'],
  ['search', 'Search box (letters edit the query; results follow as you type)'],
  ['full', 'Full entry'],
  ['text', 'Text prompts: notes, comments, fork titles (letters, q and ? are text)'],
  ['choice', 'Publish'],
  ['review', 'Secrets or personal data found (publish; comment or resolve on a shared entry)'],
  ['confirm', 'Delete / reopen'],
  ['help', 'This help'],
]

/** The help screen's sections: [keys, what they do]. Bindings with empty `keys` share the row above. */
export function helpSections(): {title: string; rows: [string, string][]}[] {
  return TITLES.map(([place, title]) => ({
    title,
    rows: TABLES[place].filter((b) => b.keys !== '').map((b): [string, string] => [b.keys, b.help]),
  }))
}

/** The help screen's lines at `columns`: each cut to the width, so the count does not depend on it. */
export function helpLines(columns: number): {text: string; title: boolean}[] {
  const out: {text: string; title: boolean}[] = [
    {text: cut('Ctrl-C quits from anywhere. Esc backs out one step and never quits.', columns), title: false},
  ]
  for (const sec of helpSections()) {
    out.push({text: '', title: false}, {text: cut(sec.title, columns), title: true})
    for (const [k, h] of sec.rows) out.push({text: cut(`  ${pad(k, 14)}${h}`, columns), title: false})
  }
  return out
}
