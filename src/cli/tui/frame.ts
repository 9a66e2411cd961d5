/**
 * @module The screen as lines of styled segments, from the state alone: header, search box, rule, body
 * (results and detail pane, the full view, or help), status line, key line or prompt. Pure, so a test can
 * check every line of a frame without a terminal; `view.tsx` only paints it.
 */
import {SCOPES} from '../../shared/contract.js'
import {helpSections, KEY_LINES} from './keymap.js'
import {placeOf} from './reduce-prompt.js'
import {layout, selectedEntry, type Prompt, type State} from './state.js'
import {fit, fullLines, rowParts, standardLines} from './text.js'

export type Color = 'cyan' | 'gray' | 'red' | 'green' | 'yellow' | 'magenta' | 'blue'

export interface Seg {
  text: string
  bold?: boolean
  dim?: boolean
  inverse?: boolean
  color?: Color
}

export type Line = Seg[]

const seg = (text: string, style: Omit<Seg, 'text'> = {}): Seg => ({text, ...style})
const plain = (text: string): Line => [seg(text)]

/** The text of a line, without styles (tests, measuring). */
export const lineText = (l: Line): string => l.map((s) => s.text).join('')

export function frame(s: State, now = Date.now()): Line[] {
  const L = layout(s.size)
  const {columns} = L
  const r = s.results
  const filters = `scope ${s.filters.scope ?? 'all'} · status ${s.filters.status ?? 'all'}`
  const n = r.items.length
  const count = !r.loaded ? '' : r.more ? `${n}+ entries` : r.query === '' ? `${n} entr${n === 1 ? 'y' : 'ies'}` : `${r.total} match${r.total === 1 ? '' : 'es'}`
  const header: Line = [seg('kb browse', {bold: true, color: 'cyan'}), seg(fit(`  ${filters}  ${count}`, Math.max(0, columns - 17)), {dim: true}), seg(' ? help'.padStart(8), {dim: true})]

  const focused = s.focus === 'search' && !s.full && !s.help && !s.prompt
  const search: Line = [seg('Search › ', focused ? {bold: true, color: 'cyan'} : {color: 'gray'}), seg(fit(s.query, Math.min(s.query.length, columns - 12)))]
  if (focused) search.push(seg(' ', {inverse: true}))
  if (s.query === '') search.push(seg(focused ? ' type to search; empty shows the latest' : '(/ to search)', {dim: true}))

  const lines: Line[] = [header, search, plain('─'.repeat(columns)), ...body(s, now), status(s, columns), bottom(s, columns)]
  return lines
}

function body(s: State, now: number): Line[] {
  const L = layout(s.size)
  const pad = (ls: Line[], rows: number): Line[] => [...ls.slice(0, rows), ...Array.from({length: Math.max(0, rows - ls.length)}, () => plain(''))]
  if (s.help) {
    const out: Line[] = []
    for (const sec of helpSections()) {
      out.push([seg(sec.title, {bold: true})])
      for (const [k, h] of sec.rows) out.push(plain(fit(`  ${k.padEnd(16)}${h}`, L.columns)))
    }
    return pad(out, L.bodyRows)
  }
  if (s.full) {
    const v = s.full
    const all = v.entry ? fullLines(v.entry, L.columns) : [v.error ?? 'Loading…']
    const shown = all.slice(v.scroll, v.scroll + L.bodyRows).map((l, i): Line => [seg(l, {bold: v.scroll + i === 0 && v.entry !== null, ...(v.error && !v.entry ? {color: 'red' as const} : {})})])
    return pad(shown, L.bodyRows)
  }
  const r = s.results
  const list: Line[] = []
  if (r.error) {
    const text = `Could not load entries: ${r.error}`
    for (let i = 0; i < text.length; i += L.listWidth) list.push([seg(text.slice(i, i + L.listWidth), {color: 'red'})])
  } else if (r.loaded && r.items.length === 0) {
    list.push([seg(r.query === '' ? 'No entries yet (add one with `kb add`).' : `No entries match "${r.query}".`, {dim: true})])
  } else {
    r.items.slice(s.top, s.top + L.listRows).forEach((e, i) => {
      const sel = s.top + i === s.selected
      const p = rowParts(e, L.listWidth, now)
      list.push([
        seg(sel ? '› ' : '  ', sel ? {bold: true, color: 'cyan'} : {}),
        seg(p.title, {inverse: sel && s.focus === 'list', bold: sel}),
        seg(' '),
        seg(p.tags, {color: 'magenta'}),
        seg(p.status, {color: e.status === 'resolved' ? 'green' : 'yellow'}),
        seg(p.scope, {color: 'blue'}),
        seg(p.age, {dim: true}),
      ])
    })
  }
  const current = selectedEntry(s)
  const detail = (current && !r.error ? standardLines(current, L.detailWidth, now) : [])
    .slice(0, L.detailRows)
    .map((l, i): Line => [seg(l, {bold: i === 0, dim: i > 0 && l.startsWith('id ')})])
  const listPane = pad(list, L.listRows)
  const detailPane = pad(detail, L.detailRows)
  if (!L.side) return [...listPane, plain('─'.repeat(L.columns)), ...detailPane]
  return listPane.map((l, i) => {
    const used = lineText(l).length
    return [...l, seg(' '.repeat(Math.max(0, L.listWidth - used))), seg(' │ ', {dim: true}), ...(detailPane[i] ?? [])]
  })
}

function status(s: State, columns: number): Line {
  if (s.busy) return [seg('Working…', {color: 'yellow'})]
  if (s.loading.slow) return [seg('Loading…', {color: 'yellow'})]
  if (s.line) {
    const color = s.line.tone === 'error' ? 'red' : s.line.tone === 'ok' ? 'green' : undefined
    return [seg(fit(s.line.text, columns), color ? {color} : {})]
  }
  return plain(' ')
}

function bottom(s: State, columns: number): Line {
  if (s.prompt) return promptLine(s.prompt, columns)
  const place = s.help ? 'help' : s.full ? 'full' : s.focus
  return [seg(fit(KEY_LINES[place], columns), {dim: true})]
}

/** The prompt line: label, the input (its tail when long), a hint — cut to one terminal line. */
function promptLine(p: Prompt, columns: number): Line {
  const title = p.entry.title.length > 30 ? `${p.entry.title.slice(0, 29)}…` : p.entry.title
  let label: string
  let hint: string
  let text: string | null = null
  switch (p.kind) {
    case 'resolve':
      label = `Resolve "${title}" — note (optional): `
      hint = 'Enter resolve · Esc cancel'
      text = p.text
      break
    case 'comment':
      label = `Comment [${p.type}]: `
      hint = 'Tab type · Enter send · Esc cancel'
      text = p.text
      break
    case 'fork':
      label = 'Fork title: '
      hint = p.text === '' ? `Enter for "${title} (fork)" · Esc cancel` : 'Enter fork · Esc cancel'
      text = p.text
      break
    case 'publish':
      label = `Publish "${title}" to: `
      hint = '←/→ choose · Enter publish · Esc cancel'
      break
    case 'delete':
      label = `Delete "${title}"? `
      hint = 'y/N'
      break
  }
  if (label.length + hint.length + 24 > columns) hint = ''
  if (label.length + 12 > columns) label = fit(label, Math.max(1, columns - 12))
  const room = columns - label.length - (hint ? hint.length + 2 : 0) - 1
  const line: Line = [seg(label, {bold: true, ...(placeOf(p) === 'confirm' ? {color: 'red' as const} : {})})]
  if (p.kind === 'publish') for (const [i, sc] of SCOPES.entries()) line.push(seg(` ${sc} `, {inverse: i === p.choice, bold: i === p.choice}))
  if (text !== null) {
    line.push(seg(text.length > room ? `…${text.slice(-(room - 1))}` : text))
    line.push(seg(' ', {inverse: true}))
  }
  if (hint) line.push(seg(`  ${hint}`, {dim: true}))
  return line
}
