/**
 * @module Keys of the full view (scrolling, following links to the entry it was forked from and to its
 * branches, the entry actions on the entry it shows) and of the help screen, which opens over any place
 * but the text fields and returns to it.
 */
import {actionOf, helpLines} from './keymap.js'
import type {Key} from './keys.js'
import {historyLines} from './history-lines.js'
import {contextOf, fullLines, type FullText} from './lines.js'
import {step, type Step} from './messages.js'
import {isEntryAction, startAction} from './reduce-prompt.js'
import {layout, type FullView, type State} from './state.js'
import {openFull, openHelp, quit, refresh} from './transitions.js'

function textOf(s: State, v: FullView): FullText {
  if (v.entry && Array.isArray(v.history)) return {lines: historyLines(v.entry.title, v.history, s.size.columns), links: []}
  return v.entry ? fullLines(v.entry, s.size.columns, contextOf(s)) : {lines: [], links: []}
}

/** How far the full view can scroll: its last line at the bottom of the body. */
export function maxScroll(s: State, v: FullView): number {
  return Math.max(0, textOf(s, v).lines.length - layout(s.size).bodyRows)
}

export function fullKey(s: State, v: FullView, k: Key): Step {
  const a = actionOf('full', k)
  const rows = layout(s.size).bodyRows
  const page = Math.max(1, rows - 1)
  const max = maxScroll(s, v)
  const to = (n: number): Step => step({...s, full: {...v, scroll: Math.max(0, Math.min(max, n))}})
  const {links} = textOf(s, v)
  switch (a) {
    case 'up':
      return to(v.scroll - 1)
    case 'down':
      return to(v.scroll + 1)
    case 'pageUp':
      return to(v.scroll - page)
    case 'pageDown':
      return to(v.scroll + page)
    case 'first':
      return to(0)
    case 'last':
      return to(max)
    case 'nextLink':
    case 'prevLink': {
      if (links.length === 0)
        return step({...s, line: {tone: 'info', text: 'This entry links to no other (no replacement, no fork parent, no branches)'}})
      const n = links.length
      const link = v.link < 0 ? (a === 'nextLink' ? 0 : n - 1) : (v.link + (a === 'nextLink' ? 1 : n - 1)) % n
      const line = links[link]!.line
      // Scroll just enough to show the highlighted link.
      const scroll = line < v.scroll ? line : line >= v.scroll + rows ? Math.min(max, line - rows + 1) : v.scroll
      return step({...s, full: {...v, link, scroll}})
    }
    case 'open': {
      const target = v.link >= 0 ? links[v.link] : undefined
      if (!target)
        return step({
          ...s,
          line: {
            tone: 'info',
            text: links.length > 0 ? 'Tab highlights a link (superseded by, forked from, branches); Enter opens it' : 'Esc goes back',
          },
        })
      return openFull(s, target.id, v)
    }
    case 'history':
      // h shows the entry's history in place of the entry, and h again the entry (docs/tui.md, "History").
      if (v.history) return step({...s, full: {...v, history: null, scroll: 0, link: -1}})
      return step({...s, full: {...v, history: 'loading', scroll: 0, link: -1}}, {type: 'loadHistory', id: v.id})
    case 'back':
      if (v.history) return step({...s, full: {...v, history: null, scroll: 0}})
      return step({...s, full: v.prev})
    case 'refresh':
      return refresh({...s, line: {tone: 'info', text: 'Refreshed'}})
    case 'quit':
      return quit(s)
    case 'help':
      return openHelp(s)
    default:
      if (!a || !isEntryAction(a)) return step(s)
      if (!v.entry)
        return step({
          ...s,
          line: {tone: 'info', text: v.error ? 'This entry could not be loaded; Esc goes back' : 'The entry is still loading'},
        })
      return startAction(s, a, v.entry)
  }
}

export function helpKey(s: State, h: {scroll: number}, k: Key): Step {
  const rows = layout(s.size).bodyRows
  const max = Math.max(0, helpLines(s.size.columns).length - rows)
  const to = (n: number): Step => step({...s, help: {scroll: Math.max(0, Math.min(max, n))}})
  switch (actionOf('help', k)) {
    case 'up':
      return to(h.scroll - 1)
    case 'down':
      return to(h.scroll + 1)
    case 'pageUp':
      return to(h.scroll - Math.max(1, rows - 1))
    case 'pageDown':
      return to(h.scroll + Math.max(1, rows - 1))
    case 'first':
      return to(0)
    case 'last':
      return to(max)
    case 'back':
      return step({...s, help: null})
    case 'quit':
      return quit(s)
    default:
      return step(s)
  }
}
