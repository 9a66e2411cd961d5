/**
 * @module Syntax colours for fenced code: speed-highlight's tokenizer with only the languages entries use
 * most (shell, TypeScript/JavaScript, Python, Go, SQL, JSON, YAML, diff), each loaded on first use. Its
 * grammars are a few plain regular expressions each, with no compile step: a fresh `kb show` colours the
 * benchmark entry's 24 blocks in three languages in ≈ 7 ms, where highlight.js built each language's grammar
 * for ≈ 10 ms (docs/performance.md, "Rendering an entry's Markdown"). Code it does not know, and code too
 * long to be worth the wait, stays plain.
 */
import {createRequire} from 'node:module'
import {dirname, join} from 'node:path'
import type {ShjLanguageData, ShjToken, tokenizeWith as TokenizeWith} from '@speed-highlight/core/tokenize'
import type {Line, Theme} from './style.js'
import {push} from './wrap.js'

// CommonJS, and synchronous: the renderer lays a document out in one pass. The package's CommonJS build is one
// small file for the tokenizer and one per language.
const require = createRequire(import.meta.url)
const TOKENIZER = require.resolve('@speed-highlight/core/tokenize')
const {tokenizeWith} = require(TOKENIZER) as {tokenizeWith: typeof TokenizeWith}
// The grammars are files beside the tokenizer: found once, here, rather than through the package's exports at each.
const LANGUAGES = join(dirname(TOKENIZER), 'languages')

/**
 * The grammars kb highlights, and those they embed (JSDoc, regular expressions). Not `todo`, which only marks
 * TODO and FIXME inside comments: without it a comment is one span in the comment's colour.
 */
const GRAMMARS = ['bash', 'diff', 'go', 'js', 'json', 'py', 'sql', 'ts', 'yaml', 'jsdoc', 'regex'] as const
type Grammar = (typeof GRAMMARS)[number]

const loaded = new Map<Grammar, ShjLanguageData>()
function grammar(name: Grammar): ShjLanguageData {
  let g = loaded.get(name)
  if (!g) {
    g = (require(join(LANGUAGES, `${name}.js`)) as {default: ShjLanguageData}).default
    loaded.set(name, g)
  }
  return g
}

/** What a grammar embeds by name (a template literal's code, a comment's TODO), loaded when the tokenizer asks. */
const EMBEDDED = Object.defineProperties(
  Object.create(null) as object,
  Object.fromEntries(GRAMMARS.map((name) => [name, {enumerable: true, get: (): ShjLanguageData => grammar(name)}])),
) as Record<string, ShjLanguageData>

/** Fence names to grammars: kb's own table, so that a fence names only what is listed here. */
const NAMES = new Map<string, Grammar>([
  ...(['bash', 'sh', 'shell', 'zsh', 'shellscript', 'console', 'shell-session', 'shellsession', 'terminal'] as const).map(
    (a): [string, Grammar] => [a, 'bash'],
  ),
  ...(['typescript', 'ts', 'tsx', 'mts', 'cts'] as const).map((a): [string, Grammar] => [a, 'ts']),
  ...(['javascript', 'js', 'jsx', 'mjs', 'cjs', 'node'] as const).map((a): [string, Grammar] => [a, 'js']),
  ...(['python', 'py', 'python3'] as const).map((a): [string, Grammar] => [a, 'py']),
  ...(['go', 'golang'] as const).map((a): [string, Grammar] => [a, 'go']),
  ...(['yaml', 'yml'] as const).map((a): [string, Grammar] => [a, 'yaml']),
  ...(['json', 'jsonc', 'json5'] as const).map((a): [string, Grammar] => [a, 'json']),
  ...(['diff', 'patch'] as const).map((a): [string, Grammar] => [a, 'diff']),
  ...(['sql', 'postgresql', 'postgres', 'sqlite', 'mysql'] as const).map((a): [string, Grammar] => [a, 'sql']),
])

/** Past this many characters a block stays plain: highlighting is for reading, not for a pasted log. */
const MAX_HIGHLIGHTED = 20_000
/**
 * A longer block is highlighted in pieces of at most this many characters, cut after a line: some grammars'
 * patterns (an identifier followed by `(`, a regular expression literal after blanks) rescan a run of
 * characters from each of its positions, quadratic in the run, so a piece bounds that work to a small
 * constant per character. A string or comment that spans a cut is coloured as two.
 */
const PIECE = 2_000

const plain = (code: string): Line[] => code.split('\n').map((l) => (l === '' ? [] : [{text: l}]))

/** Where the piece of `code` starting at `from` ends: after a blank line or a line in its second half, else at PIECE. */
function pieceEnd(code: string, from: number): number {
  const to = from + PIECE
  if (to >= code.length) return code.length
  const half = from + PIECE / 2
  const blank = code.lastIndexOf('\n\n', to - 2)
  if (blank >= half) return blank + 2
  const nl = code.lastIndexOf('\n', to - 1)
  return nl >= half ? nl + 1 : to
}

/** `code` as lines of spans, coloured when `lang` (a fence's info string) names a language kb knows. */
export function highlight(code: string, lang: string, theme: Theme): Line[] {
  const name = code.length <= MAX_HIGHLIGHTED ? NAMES.get(lang.trim().split(/\s/)[0]!.toLowerCase()) : undefined
  if (!name) return plain(code)
  const lines: Line[] = [[]]
  const token = (text: string, type?: ShjToken): void => {
    const style = (type && theme.syntax[type]) || {}
    const rows = text.split('\n')
    for (let i = 0; i < rows.length; i++) {
      if (i > 0) lines.push([])
      push(lines[lines.length - 1]!, rows[i]!, style)
    }
  }
  try {
    for (let from = 0, to = 0; from < code.length; from = to) {
      to = pieceEnd(code, from)
      tokenizeWith(code.slice(from, to), grammar(name), token, {languages: EMBEDDED})
    }
  } catch {
    // A grammar that throws on odd input (the tokenizer catches its own): the code is still worth showing, plain.
    return plain(code)
  }
  return lines
}
