/**
 * @module The terminal renderer of entry Markdown, shared by `kb show` and `kb browse`: markdown-it (the
 * parser the web view uses, `html: false`, so both read Markdown alike) parses, and its token stream,
 * made a tree, is laid out as lines of styled spans at a width: headings by weight and colour, lists with
 * hanging indents, quotes behind a bar, code behind a gutter with syntax colours (`highlight.ts`), tables
 * fitted (`table.ts`), links as text and URL (`inline.ts`). Loaded only by the views that render
 * (`await import`), never on the start-up path of other commands.
 *
 * Safety (docs/security.md): the source goes through safeText before parsing, and every span's text again
 * after layout, so the only escape sequences in the output are the SGR codes `style.ts` builds; no OSC 8
 * link is ever written. Linear in the text: markdown-it is, the layout is, highlighting is bounded.
 */
import {createRequire} from 'node:module'
import type MarkdownItModule from 'markdown-it'
import type {Token} from 'markdown-it'
import {safeText} from '../output/safe-text.js'
import {highlight} from './highlight.js'
import {inlineSpans, type InlineOptions} from './inline.js'
import {lineToAnsi, themeFromEnv, type Line, type Span, type Style, type Theme} from './style.js'
import {renderTable, type Align, type TableCells} from './table.js'
import {hardWrap, lineWidth, wrapSpans} from './wrap.js'

export type {Line, Span, Theme} from './style.js'
export {themeFromEnv} from './style.js'

// markdown-it's one-file CommonJS build: its ES modules are some sixty files, which took twice as long to load.
const MarkdownIt = createRequire(import.meta.url)('markdown-it') as typeof MarkdownItModule
const md = new MarkdownIt('default', {html: false, breaks: true, linkify: false, typographer: false})

interface Node {
  token: Token
  children: Node[]
}

interface Ctx extends InlineOptions {
  /** How many lists the block is in (the bullet changes with it). */
  depth: number
}

/** Below this many columns nested blocks stop indenting further: their text would be a column wide. */
const MIN_NESTED = 12
const BULLETS = ['•', '◦', '▪']

const PRINTABLE_ASCII = /^[\u0020-\u007E]*$/
// Most spans are printable ASCII, which safeText would return unchanged: a regular expression says so faster
// than its character loop, which matters in a fresh process, where that loop is still interpreted.
const oneLine = (s: string): string => (PRINTABLE_ASCII.test(s) ? s : safeText(s, {newlines: false, tabs: false}))

/** The flat token stream as a tree: an opening token holds everything up to its closing one. */
function tree(tokens: Token[]): Node[] {
  const root: Node[] = []
  const stack: Node[][] = [root]
  for (const t of tokens) {
    const into = stack[stack.length - 1]!
    if (t.nesting === 1) {
      const n: Node = {token: t, children: []}
      into.push(n)
      stack.push(n.children)
    } else if (t.nesting === -1) {
      if (stack.length > 1) stack.pop()
    } else into.push({token: t, children: []})
  }
  return root
}

const isTight = (n: Node): boolean => n.token.type === 'paragraph_open' && n.token.hidden

/** Blocks one under the other, a blank line between them (none after a tight list item's text). */
function renderBlocks(nodes: Node[], width: number, ctx: Ctx): Line[] {
  const out: Line[] = []
  let tight = false
  for (const n of nodes) {
    const lines = renderBlock(n, width, ctx)
    if (lines.length === 0) continue
    if (out.length > 0 && !tight) out.push([])
    out.push(...lines)
    tight = isTight(n)
  }
  return out
}

function inlineOf(n: Node, base: Style, ctx: Ctx): Span[] {
  const inline = n.children.find((c) => c.token.type === 'inline')
  return inline ? inlineSpans(inline.token.children ?? [], base, ctx) : []
}

/** `lines` behind `first` on the first line and `rest` on the others. */
function prefixed(lines: Line[], first: Line, rest: Line): Line[] {
  return lines.map((l, i) => [...(i === 0 ? first : rest), ...l])
}

function renderBlock(n: Node, width: number, ctx: Ctx): Line[] {
  const t = n.token
  switch (t.type) {
    case 'paragraph_open':
      return wrapSpans(inlineOf(n, {}, ctx), width)
    case 'heading_open': {
      const style = t.tag === 'h1' ? ctx.theme.h1 : t.tag === 'h2' ? ctx.theme.h2 : ctx.theme.h3
      return wrapSpans(inlineOf(n, style, ctx), width)
    }
    case 'blockquote_open': {
      const inner = width - 2 >= MIN_NESTED ? width - 2 : width
      const bar: Line = inner === width ? [] : [{...ctx.theme.gutter, text: '│ '}]
      const lines = renderBlocks(n.children, inner, ctx).map((l) => l.map((s) => ({...s, ...ctx.theme.quote})))
      return prefixed(lines, bar, bar)
    }
    case 'bullet_list_open':
    case 'ordered_list_open':
      return renderList(n, width, ctx)
    case 'fence':
    case 'code_block':
      return renderCode(t.content, t.type === 'fence' ? t.info : '', width, ctx.theme)
    case 'hr':
      return [[{...ctx.theme.rule, text: '─'.repeat(width)}]]
    case 'table_open':
      return renderTable(tableCells(n, ctx), width, ctx.theme)
    case 'inline':
      return wrapSpans(inlineSpans(t.children ?? [], {}, ctx), width)
    default:
      // html_block (raw HTML is off, so only as literal text) and anything a later parser adds.
      return t.content === '' ? renderBlocks(n.children, width, ctx) : wrapSpans([{text: t.content.replace(/\n+$/, '')}], width)
  }
}

function renderList(n: Node, width: number, ctx: Ctx): Line[] {
  const ordered = n.token.type === 'ordered_list_open'
  const start = Number(n.token.attrGet('start') ?? 1)
  const items = n.children.filter((c) => c.token.type === 'list_item_open')
  const last = String(start + items.length - 1)
  const marker = (i: number): string =>
    ordered ? `${String(start + i).padStart(last.length)}.` : BULLETS[Math.min(ctx.depth, BULLETS.length - 1)]!
  const indent = (ordered ? last.length + 1 : 1) + 1
  const inner = width - indent >= MIN_NESTED ? width - indent : width
  const tight = items.every((item) => item.children.every((c) => c.token.type !== 'paragraph_open' || c.token.hidden))
  const out: Line[] = []
  items.forEach((item, i) => {
    if (i > 0 && !tight) out.push([])
    const lines = renderBlocks(item.children, inner, {...ctx, depth: ctx.depth + 1})
    if (lines.length === 0) lines.push([])
    if (inner === width) {
      out.push([{...ctx.theme.bullet, text: marker(i)}], ...lines)
      return
    }
    out.push(...prefixed(lines, [{...ctx.theme.bullet, text: `${marker(i)} `}], [{text: ' '.repeat(indent)}]))
  })
  return out
}

/** Fenced or indented code: syntax colours when the fence names a language, a gutter, long lines cut. */
function renderCode(content: string, info: string, width: number, theme: Theme): Line[] {
  const code = content.replace(/\n$/, '').replace(/\t/g, '    ')
  const gutter: Line = [{...theme.gutter, text: '│ '}]
  const room = Math.max(1, width - 2)
  return highlight(code, info, theme).flatMap((l) =>
    lineWidth(l) <= room ? [[...gutter, ...l]] : hardWrap(l, room).map((x) => [...gutter, ...x]),
  )
}

function alignOf(t: Token): Align {
  const style = String(t.attrGet('style') ?? '')
  return style.includes('right') ? 'right' : style.includes('center') ? 'center' : 'left'
}

/** The cells of a table node: its header row, its body rows and each column's alignment. */
function tableCells(n: Node, ctx: Ctx): TableCells {
  const cells: TableCells = {head: [], rows: [], align: []}
  for (const section of n.children)
    for (const tr of section.children) {
      const row = tr.children.map((cell) => inlineOf(cell, {}, ctx))
      if (section.token.type === 'thead_open') {
        cells.head = row
        cells.align = tr.children.map((cell) => alignOf(cell.token))
      } else cells.rows.push(row)
    }
  return cells
}

export interface RenderOptions {
  /** Columns to fit (the terminal's or the pane's). */
  width: number
  theme?: Theme
}

/** `source` (an entry's Markdown) as styled lines, none wider than `width` (at least 2). */
export function renderMarkdown(source: string, o: RenderOptions): Line[] {
  // Two columns at least: a wide character takes two.
  const width = Math.max(2, o.width)
  const ctx: Ctx = {theme: o.theme ?? themeFromEnv(), depth: 0, showUrl: (href) => oneLine(md.normalizeLinkText(href))}
  const lines = renderBlocks(tree(md.parse(safeText(source), {})), width, ctx)
  const out: Line[] = []
  for (const shared of lines) {
    // New spans: a prefix (a quote's bar, a gutter) is one object shared by many lines.
    const line = shared.map((s) => ({...s, text: oneLine(s.text)}))
    // No trailing spaces (a blank line in a list or quote, an empty last cell): noise when copied.
    while (line.length > 0 && line[line.length - 1]!.text.trimEnd() === '') line.pop()
    if (line.length > 0) line[line.length - 1]!.text = line[line.length - 1]!.text.trimEnd()
    // Only where nesting ran out of room: a line is never wider than asked.
    if (lineWidth(line) > width) out.push(...hardWrap(line, width))
    else out.push(line)
  }
  return out
}

/** `source` rendered for a terminal: lines with SGR styles, joined by newlines (no trailing one). */
export function renderMarkdownAnsi(source: string, o: RenderOptions): string {
  return renderMarkdown(source, o).map(lineToAnsi).join('\n')
}
