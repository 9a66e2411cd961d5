/**
 * @module A paragraph's inline tokens (markdown-it) as styled spans: emphasis, strong, strike-through,
 * inline code in its colour without backticks, links as their text with the URL after it in parentheses —
 * never an OSC 8 hyperlink, which would let an entry hide where a link goes — and images as their alt text
 * with the URL. Raw HTML (off in the parser) and anything unknown is shown as its literal text.
 */
import type {Token} from 'markdown-it'
import type {Span, Style, Theme} from './style.js'

export interface InlineOptions {
  theme: Theme
  /** A link's URL as people read it (markdown-it's normalizeLinkText), made safe by the caller. */
  showUrl: (href: string) => string
}

/** Spans of the inline `tokens`, on top of `base` (a heading's or a quote's style). */
export function inlineSpans(tokens: Token[], base: Style, o: InlineOptions): Span[] {
  const out: Span[] = []
  const stack: Style[] = [base]
  const top = (): Style => stack[stack.length - 1]!
  const add = (text: string, style: Style = top()): void => {
    if (text !== '') out.push({...style, text})
  }
  // Links being read: their href and where their text starts in `out`.
  const links: {href: string; from: number}[] = []
  for (const t of tokens) {
    switch (t.type) {
      case 'text':
        add(t.content.replace(/\t/g, ' '))
        break
      // A line break in an entry is one in what is read, as on GitHub's issues and comments (`breaks: true`):
      // bodies are written line by line in terminals and by agents, not as hard-wrapped prose.
      case 'softbreak':
      case 'hardbreak':
        add('\n')
        break
      case 'code_inline':
        add(o.theme.codeMark + t.content + o.theme.codeMark, {...top(), ...o.theme.code})
        break
      case 'strong_open':
        stack.push({...top(), ...o.theme.strong})
        break
      case 'em_open':
        stack.push({...top(), ...o.theme.em})
        break
      case 's_open':
        stack.push({...top(), strikethrough: true})
        break
      case 'link_open':
        links.push({href: String(t.attrGet('href') ?? ''), from: out.length})
        stack.push({...top(), ...o.theme.link})
        break
      case 'link_close': {
        stack.pop()
        const link = links.pop()
        if (!link) break
        const text = out
          .slice(link.from)
          .map((s) => s.text)
          .join('')
        // An autolink (<https://…>, <a@b.c>) already shows its URL.
        const url = o.showUrl(link.href)
        if (link.href !== '' && text !== link.href && text !== url && `mailto:${text}` !== url) add(` (${url})`, o.theme.url)
        break
      }
      case 'strong_close':
      case 'em_close':
      case 's_close':
        if (stack.length > 1) stack.pop()
        break
      case 'image': {
        add(t.content === '' ? 'image' : t.content, {...top(), ...o.theme.link})
        const src = String(t.attrGet('src') ?? '')
        if (src !== '') add(` (image: ${o.showUrl(src)})`, o.theme.url)
        break
      }
      default:
        add(t.content)
    }
  }
  return out
}
