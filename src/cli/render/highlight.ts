/**
 * @module Syntax colours for fenced code: highlight.js's core with only the languages entries use most
 * (shell, TypeScript/JavaScript, Python, Go, SQL, JSON, YAML, diff), its HTML turned into styled spans by
 * a linear scanner (it escapes every character of the code, so `<` only ever starts one of its own tags).
 * Code it does not know, and code too long to be worth the wait, stays plain.
 */
import {createRequire} from 'node:module'
import type {HLJSApi, LanguageFn} from 'highlight.js'
import type {Line, Style, Theme} from './style.js'
import {push} from './wrap.js'

// Loaded as CommonJS, each language on first use: highlight.js's ES modules wrap the same CommonJS files, and
// loading its core and ten languages that way took 30–60 ms against 6–13 ms (a loaded 2-core machine).
const require = createRequire(import.meta.url)
const hljs = require('highlight.js/lib/core') as HLJSApi

const LANGUAGES = {
  bash: (): LanguageFn => require('highlight.js/lib/languages/bash') as LanguageFn,
  diff: (): LanguageFn => require('highlight.js/lib/languages/diff') as LanguageFn,
  go: (): LanguageFn => require('highlight.js/lib/languages/go') as LanguageFn,
  javascript: (): LanguageFn => require('highlight.js/lib/languages/javascript') as LanguageFn,
  json: (): LanguageFn => require('highlight.js/lib/languages/json') as LanguageFn,
  python: (): LanguageFn => require('highlight.js/lib/languages/python') as LanguageFn,
  shell: (): LanguageFn => require('highlight.js/lib/languages/shell') as LanguageFn,
  sql: (): LanguageFn => require('highlight.js/lib/languages/sql') as LanguageFn,
  typescript: (): LanguageFn => require('highlight.js/lib/languages/typescript') as LanguageFn,
  yaml: (): LanguageFn => require('highlight.js/lib/languages/yaml') as LanguageFn,
}
type Language = keyof typeof LANGUAGES

/** Fence names to languages. Ours, not highlight.js's: a language is loaded and registered (its grammar built) on first use only. */
const NAMES = new Map<string, Language>([
  ...(Object.keys(LANGUAGES) as Language[]).map((l): [string, Language] => [l, l]),
  ...(['sh', 'zsh', 'shellscript'] as const).map((a): [string, Language] => [a, 'bash']),
  ...(['console', 'shell-session', 'shellsession', 'terminal'] as const).map((a): [string, Language] => [a, 'shell']),
  ...(['ts', 'tsx', 'mts', 'cts'] as const).map((a): [string, Language] => [a, 'typescript']),
  ...(['js', 'jsx', 'mjs', 'cjs', 'node'] as const).map((a): [string, Language] => [a, 'javascript']),
  ...(['py', 'python3'] as const).map((a): [string, Language] => [a, 'python']),
  ...(['golang'] as const).map((a): [string, Language] => [a, 'go']),
  ...(['yml'] as const).map((a): [string, Language] => [a, 'yaml']),
  ...(['jsonc', 'json5'] as const).map((a): [string, Language] => [a, 'json']),
  ...(['patch'] as const).map((a): [string, Language] => [a, 'diff']),
  ...(['postgresql', 'postgres', 'sqlite', 'mysql'] as const).map((a): [string, Language] => [a, 'sql']),
])

function language(name: string): Language | undefined {
  const lang = NAMES.get(name)
  if (lang && !hljs.getLanguage(lang)) hljs.registerLanguage(lang, LANGUAGES[lang]())
  return lang
}

/** Past this many characters a block stays plain: highlighting is for reading, not for a pasted log. */
const MAX_HIGHLIGHTED = 20_000

const ENTITIES: Record<string, string> = {amp: '&', lt: '<', gt: '>', quot: '"', '#x27': "'", '#39': "'"}

/** The style of a highlight.js class list ("hljs-title function_"): its first `hljs-` scope, else the parent's. */
function scopeStyle(classes: string, parent: Style, theme: Theme): Style {
  const first = classes.split(' ').find((c) => c.startsWith('hljs-'))
  const own = first ? theme.syntax[first.slice(5).split('.')[0]!] : undefined
  return own ? {...parent, ...own} : parent
}

/** highlight.js's HTML as lines of spans: tags push and pop styles, entities become their characters. */
function scan(html: string, theme: Theme): Line[] {
  const lines: Line[] = [[]]
  const stack: Style[] = [{}]
  let i = 0
  while (i < html.length) {
    const c = html[i]!
    if (c === '<') {
      const end = html.indexOf('>', i)
      if (end === -1) break
      const tag = html.slice(i + 1, end)
      if (tag.startsWith('/')) {
        if (stack.length > 1) stack.pop()
      } else {
        const m = /class="([^"]*)"/.exec(tag)
        stack.push(scopeStyle(m ? m[1]! : '', stack[stack.length - 1]!, theme))
      }
      i = end + 1
      continue
    }
    // A run of text up to the next tag, entity or line break.
    let j = i
    while (j < html.length && html[j] !== '<' && html[j] !== '&' && html[j] !== '\n') j++
    if (j > i) {
      push(lines[lines.length - 1]!, html.slice(i, j), stack[stack.length - 1]!)
      i = j
    } else if (c === '\n') {
      lines.push([])
      i++
    } else {
      const semi = html.indexOf(';', i)
      const name = semi === -1 || semi - i > 6 ? undefined : html.slice(i + 1, semi)
      const ch = name === undefined ? undefined : ENTITIES[name]
      push(lines[lines.length - 1]!, ch ?? '&', stack[stack.length - 1]!)
      i = ch === undefined ? i + 1 : semi + 1
    }
  }
  return lines
}

/** `code` as lines of spans, coloured when `lang` (a fence's info string) names a language kb knows. */
export function highlight(code: string, lang: string, theme: Theme): Line[] {
  const known = code.length <= MAX_HIGHLIGHTED ? language(lang.trim().split(/\s/)[0]!.toLowerCase()) : undefined
  if (known) {
    try {
      return scan(hljs.highlight(code, {language: known, ignoreIllegals: true}).value, theme)
    } catch {
      // A grammar that throws on odd input: the code is still worth showing, plain.
    }
  }
  return code.split('\n').map((l) => (l === '' ? [] : [{text: l}]))
}
