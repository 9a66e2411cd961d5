/**
 * @module Entry Markdown as HTML for the web view (docs/web.md, "Safety"): markdown-it, the parser the terminal
 * renderer uses, with the same options (`html: false`, so raw HTML in an entry is text). Links are limited to
 * http(s) and mailto and carry `rel="noopener nofollow ugc"`; images become links (nothing is fetched from
 * elsewhere, and the CSP would refuse it); every token is checked against an allow-list of types and attributes
 * before rendering; headings move one level down under the page's title; invisible and direction-changing
 * characters are shown as U+FFFD. Linear in the text, as markdown-it is.
 */
import {createRequire} from 'node:module'
import type MarkdownItModule from 'markdown-it'
import type {Token} from 'markdown-it'
import {escapeText, Html, INVISIBLE} from './html.js'

// markdown-it's one-file CommonJS build, as the terminal renderer loads it.
const MarkdownIt = createRequire(import.meta.url)('markdown-it') as typeof MarkdownItModule
const md = new MarkdownIt('default', {html: false, breaks: true, linkify: false, typographer: false})

const LINK_SCHEME = /^(?:https?:|mailto:)/i
md.validateLink = (url: string): boolean => LINK_SCHEME.test(url)

/** The token types markdown-it's default preset makes without raw HTML; anything else is rendered as text. */
const TYPES = new Set([
  'paragraph_open',
  'paragraph_close',
  'heading_open',
  'heading_close',
  'blockquote_open',
  'blockquote_close',
  'bullet_list_open',
  'bullet_list_close',
  'ordered_list_open',
  'ordered_list_close',
  'list_item_open',
  'list_item_close',
  'table_open',
  'table_close',
  'thead_open',
  'thead_close',
  'tbody_open',
  'tbody_close',
  'tr_open',
  'tr_close',
  'th_open',
  'th_close',
  'td_open',
  'td_close',
  'hr',
  'code_block',
  'fence',
  'inline',
  'text',
  'softbreak',
  'hardbreak',
  'code_inline',
  'em_open',
  'em_close',
  'strong_open',
  'strong_close',
  's_open',
  's_close',
  'link_open',
  'link_close',
  'image',
])
/** Attributes kept, by name; any other is dropped. */
const ATTRS = new Set(['href', 'title', 'start', 'src', 'alt'])

const REL = 'noopener nofollow ugc'

function allowList(tokens: Token[]): void {
  for (const t of tokens) {
    if (!TYPES.has(t.type)) {
      t.type = 'text'
      t.tag = ''
      t.nesting = 0
      t.children = null
    }
    if (t.attrs) {
      // Table alignment arrives as `style`, which the CSP refuses inline: a class says it instead.
      const align = t.attrGet('style')?.match(/^text-align:(left|right|center)$/)?.[1]
      t.attrs = t.attrs.filter(([name]) => ATTRS.has(name))
      if (align) t.attrs.push(['class', `align-${align}`])
    }
    if (t.children) allowList(t.children)
  }
}

const rules = md.renderer.rules
rules.link_open = (tokens, idx, options, _env, self) => {
  tokens[idx]!.attrSet('rel', REL)
  return self.renderToken(tokens, idx, options)
}
rules.image = (tokens, idx) => {
  const t = tokens[idx]!
  const src = t.attrGet('src') ?? ''
  const alt = t.children ? md.renderer.renderInlineAsText(t.children, md.options, {}) : t.content
  const label = `image: ${alt || src}`
  return LINK_SCHEME.test(src) ? `<a href="${escapeText(src)}" rel="${REL}">${escapeText(label)}</a>` : escapeText(label)
}
const heading = (tokens: Token[], idx: number): string => {
  const t = tokens[idx]!
  const level = Math.min(6, Number(t.tag.slice(1)) + 1)
  return t.nesting === 1 ? `<h${level}>` : `</h${level}>\n`
}
rules.heading_open = heading
rules.heading_close = heading

/** An entry's Markdown body as safe HTML. */
export function markdownHtml(source: string): Html {
  const tokens = md.parse(source, {})
  allowList(tokens)
  return new Html(md.renderer.render(tokens, md.options, {}).replace(INVISIBLE, '\ufffd'))
}
