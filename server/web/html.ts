/**
 * @module HTML that escapes by construction: the `html` tag escapes every interpolated value unless it is
 * already `Html` (made by this tag, or by the Markdown renderer), so no page builds markup around user text by hand.
 * Text is escaped with what would make it read other than it is shown as U+FFFD: controls, direction marks and
 * overrides (a title `evil\u202Eelgoog` would read as "google…"), invisible characters — as the consent page does.
 */

/** Markup known to be safe: produced by `html`, `raw` of a constant, or the Markdown renderer. */
export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value
  }
}

const ESCAPES: Record<string, string> = {'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;'}
const UNSAFE =
  /[&<>"']|[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]/g
/** Characters that change how text reads without being seen (direction controls, invisible ones): shown as U+FFFD. */
export const INVISIBLE =
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]/g

/** Text escaped for an element's content or a quoted attribute. */
export function escapeText(text: string): string {
  return text.replace(UNSAFE, (c) => ESCAPES[c] ?? '\ufffd')
}

type Value = Html | string | number | boolean | null | undefined | readonly Value[]

function render(v: Value): string {
  if (v === null || v === undefined || v === false) return ''
  if (v instanceof Html) return v.value
  if (Array.isArray(v)) return v.map(render).join('')
  return escapeText(String(v))
}

/** A template whose interpolations are escaped (arrays joined, null/undefined/false left out). */
export function html(strings: TemplateStringsArray, ...values: Value[]): Html {
  let out = strings[0]!
  for (let i = 0; i < values.length; i++) out += render(values[i] as Value) + strings[i + 1]!
  return new Html(out)
}

/** A search snippet: `«…»` marks what matched (server/search/explain.ts), shown as `<mark>`; the rest escaped. */
export function snippetHtml(snippet: string): Html {
  let out = ''
  let at = 0
  while (at < snippet.length) {
    const open = snippet.indexOf('«', at)
    const close = open === -1 ? -1 : snippet.indexOf('»', open + 1)
    if (open === -1 || close === -1) break
    out += `${escapeText(snippet.slice(at, open))}<mark>${escapeText(snippet.slice(open + 1, close))}</mark>`
    at = close + 1
  }
  return new Html(out + escapeText(snippet.slice(at)))
}
