/**
 * @module Keys of the full view (scrolling, and the entry actions on the entry it shows) and of the help
 * screen.
 */
import {actionOf} from './keymap.js'
import type {Key} from './keys.js'
import {fullLines} from './text.js'
import {step, type Step} from './messages.js'
import {quit} from './transitions.js'
import {isEntryAction, startAction} from './reduce-prompt.js'
import {layout, type FullView, type State} from './state.js'

/** How far the full view can scroll: its last line at the bottom of the body. */
export function maxScroll(s: State, v: FullView): number {
  const {bodyRows, columns} = layout(s.size)
  return Math.max(0, (v.entry ? fullLines(v.entry, columns).length : 0) - bodyRows)
}

export function fullKey(s: State, v: FullView, k: Key): Step {
  const a = actionOf('full', k)
  const page = Math.max(1, layout(s.size).bodyRows - 1)
  const max = maxScroll(s, v)
  const to = (n: number): Step => step({...s, full: {...v, scroll: Math.max(0, Math.min(max, n))}})
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
    case 'back':
      return step({...s, full: null})
    case 'quit':
      return quit(s)
    case 'help':
      return step({...s, help: true, full: null})
    default:
      if (a && isEntryAction(a) && v.entry) return startAction(s, a, v.entry)
      return step(s)
  }
}

export function helpKey(s: State, k: Key): Step {
  return actionOf('help', k) === 'back' ? step({...s, help: false}) : step(s)
}
