/**
 * @module The screen as lines of styled segments, from the state alone: header, search box, rule, body
 * (results and detail pane, the full view, or help), status line, key line or prompt. Pure, so a test can
 * check every line of a frame without a terminal; `view.tsx` only paints it. Every line is measured in
 * terminal columns and fits the width.
 */
import {helpLines, KEY_LINES} from './keymap.js'
import {contextOf, fullLines, rowParts, standardLines, type Context} from './lines.js'
import {promptLines} from './prompt-lines.js'
import {reviewLines} from './review-lines.js'
import {placeOf} from './reduce.js'
import {layout, selectedEntry, windowTop, type Filters, type Layout, type State} from './state.js'
import {lineText, plain, seg, type Line} from './styled.js'
import {cut, fit, tail, width, wrap} from './text.js'

/** A status line wraps to at most this many lines (an error and its fix), the body giving way. */
const STATUS_MAX = 3

function filterText(f: Filters, projectId: string | null, ctx: Context): string {
  return [
    f.scope ? `scope ${f.scope}` : '',
    f.status ? `status ${f.status}` : '',
    projectId ? `project ${ctx.projects[projectId]?.name ?? projectId}` : '',
  ]
    .filter(Boolean)
    .join(' · ')
}

/**
 * A key line narrower than the terminal: groups of keys are dropped from the middle (the last two, `? more`
 * and `q quit`, stay) before anything is cut.
 */
function keyLine(line: string, w: number): string {
  const groups = line.split('  ')
  while (width(groups.join('  ')) > w && groups.length > 3) groups.splice(groups.length - 3, 1)
  return cut(groups.join('  '), w)
}

export function frame(s: State, now = Date.now()): Line[] {
  const ctx = contextOf(s)
  const {columns} = s.size
  const status = statusLines(s, columns)
  const bottom =
    s.prompt && !s.help ? promptLines(s.prompt, columns, ctx) : [[seg(keyLine(KEY_LINES[placeOf(s)], columns - 1), {dim: true})]]
  const L = layout(s.size, status.length + bottom.length)
  return [header(s, columns, ctx), searchLine(s, columns), plain('─'.repeat(columns)), ...body(s, L, ctx, now), ...status, ...bottom]
}

function header(s: State, columns: number, ctx: Context): Line {
  const r = s.results
  const n = r.items.length
  let count = ''
  if (r.loaded && r.query === '') count = `${n}${r.more ? '+' : ''} entr${n === 1 && !r.more ? 'y' : 'ies'}`
  else if (r.loaded) count = r.total > n ? `${n} of ${r.total} matches` : `${r.total} match${r.total === 1 ? '' : 'es'}`
  const filters = `scope ${s.filters.scope ?? 'all'} · status ${s.filters.status ?? 'all'}${s.projectId ? ` · project ${ctx.projects[s.projectId]?.name ?? s.projectId}` : ''}`
  // Where ? is a letter (the search box, a text prompt), the header does not promise help.
  const right = ['search', 'text'].includes(placeOf(s)) ? ' Esc back' : ' ? help'
  return [
    seg('kb browse', {bold: true, color: 'cyan'}),
    seg(fit(`  ${filters}  ${count}`, Math.max(0, columns - 9 - width(right) - 1)), {dim: true}),
    seg(right, {dim: true}),
  ]
}

function searchLine(s: State, columns: number): Line {
  const focused = placeOf(s) === 'search'
  const label = 'Search › '
  const line: Line = [seg(label, focused ? {bold: true, color: 'cyan'} : {color: 'gray'}), seg(tail(s.query, columns - width(label) - 2))]
  if (focused) line.push(seg(' ', {inverse: true}))
  const room = columns - width(lineText(line)) - 1
  if (s.query === '') line.push(seg(cut(focused ? ' type to search; empty shows the latest' : '(/ to search)', room), {dim: true}))
  return line
}

const padLines = (ls: Line[], rows: number): Line[] => [
  ...ls.slice(0, rows),
  ...Array.from({length: Math.max(0, rows - ls.length)}, () => plain('')),
]

function body(s: State, L: Layout, ctx: Context, now: number): Line[] {
  if (s.help) {
    const all = helpLines(L.columns)
    const scroll = Math.min(s.help.scroll, Math.max(0, all.length - L.bodyRows))
    const shown = all.slice(scroll, scroll + L.bodyRows).map((l): Line => [seg(l.text, {bold: l.title})])
    if (scroll + L.bodyRows < all.length)
      shown[shown.length - 1] = [
        seg(cut(`↓ more: lines ${scroll + 1}–${scroll + L.bodyRows - 1} of ${all.length} (j, PgDn, G)`, L.columns), {dim: true}),
      ]
    return padLines(shown, L.bodyRows)
  }
  if (s.prompt?.kind === 'sensitive') {
    const all = reviewLines(s.prompt, L.columns)
    const scroll = Math.min(s.prompt.scroll, Math.max(0, all.length - L.bodyRows))
    const shown = all.slice(scroll, scroll + L.bodyRows)
    if (scroll + L.bodyRows < all.length)
      shown[shown.length - 1] = [
        seg(cut(`↓ more: lines ${scroll + 1}–${scroll + L.bodyRows - 1} of ${all.length} (j, PgDn, G)`, L.columns), {dim: true}),
      ]
    return padLines(shown, L.bodyRows)
  }
  if (s.full) {
    const v = s.full
    if (!v.entry) return padLines([[seg(v.error ?? 'Loading…', v.error ? {color: 'red'} : {})]], L.bodyRows)
    const {lines, links} = fullLines(v.entry, L.columns, ctx)
    // Kept in range here too: a resize may have made the text shorter than the scroll.
    const scroll = Math.min(v.scroll, Math.max(0, lines.length - L.bodyRows))
    const linkLine = v.link >= 0 ? links[v.link]?.line : undefined
    return padLines(
      lines.slice(scroll, scroll + L.bodyRows).map((l, i): Line => (scroll + i === linkLine ? l.map((x) => ({...x, inverse: true})) : l)),
      L.bodyRows,
    )
  }
  const list = listLines(s, L, ctx, now)
  const current = selectedEntry(s)
  const detail = padLines(current && !s.results.error ? standardLines(current, L.detailWidth, ctx, now, L.detailRows) : [], L.detailRows)
  if (!L.side) return [...list, plain('─'.repeat(L.columns)), ...detail]
  return list.map((l, i) => [
    ...l,
    seg(' '.repeat(Math.max(0, L.listWidth - width(lineText(l))))),
    seg(' │ ', {dim: true}),
    ...(detail[i] ?? []),
  ])
}

function emptyText(s: State, ctx: Context): string {
  const r = s.results
  const f = filterText(r.filters, s.projectId, ctx)
  if (r.query === '' && f === '') return 'No entries yet (add one with `kb add`).'
  const what = r.query === '' ? 'No entries' : `No entries match "${r.query}"`
  if (f === '') return `${what}.`
  const change = s.projectId
    ? "s and t change the filters; the project is this repository's (kb browse --project picks another)"
    : 's and t change them'
  return `${what} with ${f}: the filters may hide others (${change}).`
}

function listLines(s: State, L: Layout, ctx: Context, now: number): Line[] {
  const r = s.results
  if (r.error)
    return padLines(
      wrap(`Could not load entries: ${r.error}`, L.listWidth - 1).map((t): Line => [seg(t, {color: 'red'})]),
      L.listRows,
    )
  if (r.loaded && r.items.length === 0)
    return padLines(
      wrap(emptyText(s, ctx), L.listWidth - 1).map((t): Line => [seg(t, {dim: true})]),
      L.listRows,
    )
  const top = windowTop(s.top, s.selected, L.listRows, r.items.length)
  const rows = r.items.slice(top, top + L.listRows).map((e, i): Line => {
    const sel = top + i === s.selected
    const p = rowParts(e, L.listWidth, now)
    return [
      seg(sel ? '› ' : '  ', sel ? {bold: true, color: 'cyan'} : {}),
      seg(p.title, {inverse: sel && s.focus === 'list', bold: sel}),
      seg(' '),
      seg(p.tags, {color: 'magenta'}),
      seg(p.badge, {color: 'red', bold: true}),
      seg(p.status, {color: e.status === 'resolved' ? 'green' : 'yellow'}),
      seg(p.scope, {color: 'blue'}),
      seg(p.age, {dim: true}),
    ]
  })
  if (rows.length < L.listRows && r.more)
    rows.push([seg(cut(s.loading.pending ? '  Loading more…' : '  more below: ↓ or G loads them', L.listWidth - 1), {dim: true})])
  return padLines(rows, L.listRows)
}

function statusLines(s: State, columns: number): Line[] {
  if (s.busy) return [[seg('Working…', {color: 'yellow'})]]
  if (s.loading.slow) return [[seg(s.loading.mode === 'more' ? 'Loading more…' : 'Loading…', {color: 'yellow'})]]
  if (!s.line) return [plain('')]
  const color = s.line.tone === 'error' ? 'red' : s.line.tone === 'ok' ? 'green' : undefined
  const lines = wrap(s.line.text, columns - 1)
  const shown =
    lines.length > STATUS_MAX ? [...lines.slice(0, STATUS_MAX - 1), cut(lines.slice(STATUS_MAX - 1).join(' '), columns - 1)] : lines
  return shown.map((t): Line => [seg(t, color ? {color} : {})])
}
