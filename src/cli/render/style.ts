/**
 * @module What the Markdown renderer draws with: spans of text with a style, lines of spans, and the two
 * themes (a dark and a light terminal) as named colours of the 16-colour palette. Named colours, not RGB:
 * they follow the user's own terminal palette, and both back-ends speak them — SGR codes built here for
 * `kb show`, and Ink's `color` prop (chalk's names) for `kb browse`.
 */

export type ColorName =
  | 'black'
  | 'red'
  | 'green'
  | 'yellow'
  | 'blue'
  | 'magenta'
  | 'cyan'
  | 'white'
  | 'gray'
  | 'redBright'
  | 'greenBright'
  | 'yellowBright'
  | 'blueBright'
  | 'magentaBright'
  | 'cyanBright'
  | 'whiteBright'

export interface Style {
  bold?: boolean
  dim?: boolean
  italic?: boolean
  underline?: boolean
  strikethrough?: boolean
  color?: ColorName
}

export interface Span extends Style {
  text: string
}

export type Line = Span[]

/** The roles the renderer colours; a theme gives each a style. */
export interface Theme {
  name: 'dark' | 'light' | 'mono'
  /** Put around inline code: nothing where a colour sets it off, a backtick where there is none. */
  codeMark: string
  h1: Style
  h2: Style
  h3: Style
  strong: Style
  em: Style
  code: Style
  link: Style
  url: Style
  quote: Style
  gutter: Style
  rule: Style
  bullet: Style
  tableHead: Style
  tableBorder: Style
  /** speed-highlight's token types (kwd, str, cmnt…) to styles. */
  syntax: Record<string, Style>
}

function syntax(c: {
  keyword: ColorName
  string: ColorName
  number: ColorName
  title: ColorName
  type: ColorName
  attr: ColorName
}): Record<string, Style> {
  return {
    kwd: {color: c.keyword},
    str: {color: c.string},
    num: {color: c.number},
    bool: {color: c.number},
    func: {color: c.title},
    class: {color: c.type},
    type: {color: c.type},
    var: {color: c.attr},
    esc: {color: c.attr},
    oper: {},
    cmnt: {color: 'gray', italic: true},
    // A TODO or FIXME in a comment.
    err: {color: 'gray', bold: true},
    insert: {color: 'green'},
    deleted: {color: 'red'},
    section: {color: c.title, bold: true},
  }
}

const DARK: Theme = {
  name: 'dark',
  codeMark: '',
  h1: {bold: true, underline: true, color: 'magentaBright'},
  h2: {bold: true, color: 'cyanBright'},
  h3: {bold: true, color: 'cyan'},
  strong: {bold: true},
  em: {italic: true},
  code: {color: 'yellow'},
  link: {underline: true, color: 'blueBright'},
  url: {color: 'gray'},
  quote: {italic: true},
  gutter: {color: 'gray'},
  rule: {color: 'gray'},
  bullet: {color: 'cyan'},
  tableHead: {bold: true},
  tableBorder: {color: 'gray'},
  syntax: syntax({
    keyword: 'magentaBright',
    string: 'greenBright',
    number: 'yellowBright',
    title: 'blueBright',
    type: 'cyanBright',
    attr: 'cyan',
  }),
}

// On a light background the bright and yellow colours wash out: darker ones only.
const LIGHT: Theme = {
  name: 'light',
  codeMark: '',
  h1: {bold: true, underline: true, color: 'magenta'},
  h2: {bold: true, color: 'blue'},
  h3: {bold: true, color: 'cyan'},
  strong: {bold: true},
  em: {italic: true},
  code: {color: 'red'},
  link: {underline: true, color: 'blue'},
  url: {color: 'gray'},
  quote: {italic: true},
  gutter: {color: 'gray'},
  rule: {color: 'gray'},
  bullet: {color: 'blue'},
  tableHead: {bold: true},
  tableBorder: {color: 'gray'},
  syntax: syntax({keyword: 'magenta', string: 'green', number: 'red', title: 'blue', type: 'cyan', attr: 'blue'}),
}

// Without colours (NO_COLOR, TERM=dumb: `kb browse` still renders; `kb show` then prints Markdown as stored):
// weight, slant and underline only, and inline code keeps its backticks.
const MONO: Theme = {
  ...DARK,
  name: 'mono',
  codeMark: '`',
  h1: {bold: true, underline: true},
  h2: {bold: true},
  h3: {bold: true},
  code: {},
  link: {underline: true},
  url: {},
  gutter: {},
  rule: {},
  bullet: {},
  tableBorder: {},
  syntax: {},
}

/**
 * The theme for this terminal: none of colour with NO_COLOR (non-empty) or TERM=dumb; else `KB_THEME=dark|light`,
 * else what the terminal says through `COLORFGBG` ("fg;bg", set by rxvt, Konsole, iTerm2…: a background of 7
 * or 15 is light, 0–6 and 8 dark), else dark.
 */
export function themeFromEnv(env: NodeJS.ProcessEnv = process.env): Theme {
  if ((env.NO_COLOR !== undefined && env.NO_COLOR !== '') || env.TERM === 'dumb') return MONO
  const asked = env.KB_THEME?.trim().toLowerCase()
  if (asked === 'light') return LIGHT
  if (asked === 'dark') return DARK
  const bg = env.COLORFGBG?.split(';').pop()
  if (bg === '7' || bg === '15') return LIGHT
  return DARK
}

const FG: Record<ColorName, number> = {
  black: 30,
  red: 31,
  green: 32,
  yellow: 33,
  blue: 34,
  magenta: 35,
  cyan: 36,
  white: 37,
  gray: 90,
  redBright: 91,
  greenBright: 92,
  yellowBright: 93,
  blueBright: 94,
  magentaBright: 95,
  cyanBright: 96,
  whiteBright: 97,
}

/** The SGR parameters of a style ("1;4;95"), empty for none. Only numbers built here: nothing from an entry. */
function sgrCodes(s: Style): string {
  const codes: number[] = []
  if (s.bold) codes.push(1)
  if (s.dim) codes.push(2)
  if (s.italic) codes.push(3)
  if (s.underline) codes.push(4)
  if (s.strikethrough) codes.push(9)
  if (s.color) codes.push(FG[s.color])
  return codes.join(';')
}

/** A line as text with SGR escapes: each styled span opens its style and resets after itself. */
export function lineToAnsi(line: Line): string {
  let out = ''
  for (const span of line) {
    const codes = sgrCodes(span)
    out += codes === '' ? span.text : `\u001b[${codes}m${span.text}\u001b[0m`
  }
  return out
}

/** Whether two spans look alike (adjacent ones are merged). */
export function sameStyle(a: Style, b: Style): boolean {
  return (
    !a.bold === !b.bold &&
    !a.dim === !b.dim &&
    !a.italic === !b.italic &&
    !a.underline === !b.underline &&
    !a.strikethrough === !b.strikethrough &&
    a.color === b.color
  )
}

/** The text of a line, without styles. */
export const plainText = (line: Line): string => line.map((s) => s.text).join('')
