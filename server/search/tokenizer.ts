/**
 * @module The one tokenizer of search, for every driver: a pure function from text to the terms its index
 * holds (`indexTerms`, `tokenize`), and the chunks a query is read from (`readChunks`, query.ts). Linear in
 * the text: one pass over its characters, no regular expression that can backtrack (docs/search.md, "Tokens").
 *
 * Text is cut into chunks at whitespace and punctuation other than the joiners `_ - . / \ :`.
 * - A **word** (`connection`, `ECONNREFUSED`, `E0432`, `502`) is one term: folded (lower case, accents
 *   removed, ß → ss) and Porter-stemmed (`crashes` → `crash`); numbers and codes stay as they are.
 * - A **code token** — parts joined by joiners or written in camel case (`getUserName`, `XMLHttpRequest`,
 *   `max_idle_conns`, `max-old-space-size`, `src/server/app.ts`, `tokio::spawn`, `127.0.0.1:5432`,
 *   `v20.19.0`) — is indexed whole and split: first the whole (exact as written, folded), then its parts in
 *   order (stemmed words, so a phrase of them matches the parts adjacent), then other forms: the segments
 *   between `/`, `\` and `:` that still hold a joiner (`app.ts`, `push_back`, `127.0.0.1`), each camel-case
 *   run (`hikaripool` of `HikariPool-1`), and for a version `v20.19.0` also `20.19.0` and `20.19`.
 * - A word with ä, ö or ü also has its German spelling with ae, oe, ue (`Fußgänger` → `fussganger` and
 *   `fussgaenger`), after the word's other terms so that phrases stay adjacent.
 * - A run of Chinese, Japanese or Korean characters is indexed as overlapping bigrams (`文字化け` → 文字
 *   字化 化け; one character alone is itself), normalised with NFKC (half-width kana become full-width).
 * Terms never contain whitespace; besides letters, digits and marks they hold only joiners.
 */
import {stemOf} from './stem.js'

/** How a term came to be, which the ranking weighs (bm25f.ts) and explain marks (explain.ts). */
export type TokenKind = 'word' | 'whole' | 'part' | 'form' | 'gram'

/** Receives each token: its index term, how it came to be, and where its text lies in the input (UTF-16 offsets). */
export type TokenVisitor = (term: string, kind: TokenKind, start: number, end: number) => void

/** A code token's piece: its folded text, its German spelling when that differs, and its place. */
interface ChunkPart {
  text: string
  german: string | null
  start: number
  end: number
}

export type Chunk =
  | {
      kind: 'code'
      start: number
      end: number
      parts: ChunkPart[]
      /** The whole as written, folded; null for a single part, and past WHOLE_MAX. */
      whole: string | null
      wholeGerman: string | null
      /** Other exact forms: segments between strong joiners that hold a joiner, a version's other spellings. */
      forms: string[]
    }
  | {kind: 'cjk'; start: number; end: number; chars: string[]; offsets: number[]}

/** The longest whole (or other form) indexed: longer code tokens are found by their parts. */
const WHOLE_MAX = 128

// Character classes: 0 separator, 1 letter or digit (or mark), 2 joiner, 3 CJK.
const SEPARATOR = 0
const ALNUM = 1
const JOINER = 2
const CJK = 3
const ASCII_CLASS = new Uint8Array(128)
for (let c = 48; c <= 57; c++) ASCII_CLASS[c] = ALNUM
for (let c = 65; c <= 90; c++) ASCII_CLASS[c] = ALNUM
for (let c = 97; c <= 122; c++) ASCII_CLASS[c] = ALNUM
for (const j of '_-./\\:') ASCII_CLASS[j.charCodeAt(0)] = JOINER
const STRONG_JOINERS = '/\\:'

const CJK_CHAR = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u3005\u3006\u30fc\uff70\uff9e\uff9f]/u
const WORD_CHAR = /[\p{L}\p{N}\p{M}]/u
const classCache = new Map<number, number>()

function classOf(code: number, char: string): number {
  if (code < 128) return ASCII_CLASS[code]!
  let c = classCache.get(code)
  if (c === undefined) {
    c = CJK_CHAR.test(char) ? CJK : WORD_CHAR.test(char) ? ALNUM : SEPARATOR
    if (classCache.size < 65_536) classCache.set(code, c)
  }
  return c
}

/** Letter case of one character: 1 upper, -1 lower, 2 digit, 0 neither. */
function caseOf(c: string): number {
  const code = c.charCodeAt(0)
  if (code < 128) return code >= 65 && code <= 90 ? 1 : code >= 97 && code <= 122 ? -1 : code >= 48 && code <= 57 ? 2 : 0
  const lower = c.toLowerCase()
  const upper = c.toUpperCase()
  return lower === upper ? 0 : c === upper ? 1 : c === lower ? -1 : 0
}

const MARKS = /\p{M}/gu
const ASCII_ONLY = /^[\x00-\x7f]*$/
const GERMAN = /[äöüÄÖÜ]|[aouAOU]\u0308/

/** Folds as the index does: lower case, accents removed, ß → ss. */
function fold(text: string): string {
  if (ASCII_ONLY.test(text)) return text.toLowerCase()
  return text.normalize('NFKD').replace(MARKS, '').toLowerCase().replaceAll('ß', 'ss')
}

/** The German spelling of a word with umlauts (ä → ae, ö → oe, ü → ue), folded; null when it has none. */
function germanFold(text: string): string | null {
  if (ASCII_ONLY.test(text) || !GERMAN.test(text)) return null
  const spelled = text.normalize('NFC').replace(/[äÄ]/g, 'ae').replace(/[öÖ]/g, 'oe').replace(/[üÜ]/g, 'ue')
  return fold(spelled)
}

/**
 * Splits a run of letters and digits at camel-case humps: `getUserName` → get User Name, `XMLHttpRequest` →
 * XML Http Request, `HTTP2Server` → HTTP2 Server, `CSVs` stays whole. A hump begins at a capital after a
 * small letter, or at the last capital of a run of capitals or digits before small letters (not a plural s).
 */
function humps(run: string, at: number, out: Array<{text: string; start: number; end: number}>): void {
  const chars = ASCII_ONLY.test(run) ? run.split('') : Array.from(run)
  let from = 0
  let offset = chars[0]!.length
  let fromOffset = 0
  let prev = caseOf(chars[0]!)
  let cur = chars.length > 1 ? caseOf(chars[1]!) : 0
  for (let i = 1; i < chars.length; i++) {
    const next = i + 1 < chars.length ? caseOf(chars[i + 1]!) : 0
    // `CSVs`, `IDsFor`: a lone s after capitals is a plural, not a hump.
    const plural = chars[i + 1] === 's' && (i + 2 === chars.length || caseOf(chars[i + 2]!) !== -1)
    if (cur === 1 && (prev === -1 || ((prev === 1 || prev === 2) && next === -1 && !plural))) {
      out.push({text: chars.slice(from, i).join(''), start: at + fromOffset, end: at + offset})
      from = i
      fromOffset = offset
    }
    offset += chars[i]!.length
    prev = cur
    cur = next
  }
  out.push({text: chars.slice(from).join(''), start: at + fromOffset, end: at + run.length})
}

/** An ASCII run with no hump (`two`, `Mach`, `HTTP`, `1`): no capital after the first character, or no small letter (scan). */
function humpless(run: string): boolean {
  let laterCapital = false
  let small = false
  for (let i = 0; i < run.length; i++) {
    const c = run.charCodeAt(i)
    if (c >= 97 && c <= 122) small = true
    else if (c >= 65 && c <= 90) laterCapital ||= i > 0
    else if (c >= 128) return false
  }
  return !(laterCapital && small)
}

const VERSION = /^v?\d+(?:\.\d+)+$/

/** A version's other spellings: without its `v`, and major.minor of major.minor.patch (`v20.19.0` → 20.19.0, 20.19). */
function versionForms(version: string, forms: string[]): void {
  const numbers = version.replace(/^v/, '').split('.')
  if (version.startsWith('v')) forms.push(numbers.join('.'))
  if (numbers.length === 3) forms.push(`${numbers[0]}.${numbers[1]}`)
}

/** A code token from its text (joiners trimmed from both ends) at `start`; null when nothing of it survives folding. */
function codeChunk(text: string, start: number): Chunk | null {
  const pieces: Array<{text: string; start: number; end: number}> = []
  /** The runs between joiners, with how many camel-case humps each has. */
  const runs: Array<{text: string; humps: number}> = []
  let joined = false
  let runStart = -1
  for (let i = 0; i <= text.length; i++) {
    const joiner = i < text.length && text.charCodeAt(i) < 128 && ASCII_CLASS[text.charCodeAt(i)] === JOINER
    if (i < text.length && !joiner) {
      if (runStart < 0) runStart = i
      continue
    }
    if (joiner) joined = true
    if (runStart >= 0) {
      const run = text.slice(runStart, i)
      const before = pieces.length
      if (humpless(run)) pieces.push({text: run, start: start + runStart, end: start + i})
      else humps(run, start + runStart, pieces)
      runs.push({text: run, humps: pieces.length - before})
    }
    runStart = -1
  }
  const folded = fold(text)
  const isVersion = joined && VERSION.test(folded)
  const parts: ChunkPart[] = []
  pieces.forEach((p, i) => {
    const t = fold(p.text)
    // A version's parts are its numbers: `v20` is 20. A lone combining mark folds to nothing.
    const partText = isVersion && i === 0 && t.startsWith('v') ? t.slice(1) : t
    if (partText !== '') parts.push({text: partText, german: germanFold(p.text), start: p.start, end: p.end})
  })
  if (parts.length === 0) return null
  const forms: string[] = []
  let whole: string | null = null
  let wholeGerman: string | null = null
  if (parts.length > 1 && text.length <= WHOLE_MAX) {
    whole = folded
    wholeGerman = germanFold(text)
    if (joined) {
      // The segments between strong joiners that still hold a joiner (`app.ts` of a path), with a version's
      // other spellings, and each camel-case run (`HikariPool` of `HikariPool-1`).
      let segment = ''
      const addSegment = (): void => {
        if (segment !== folded && /[_\-.]/.test(segment) && /^[^_\-.].*[^_\-.]$/.test(segment)) forms.push(segment)
        if (VERSION.test(segment)) versionForms(segment, forms)
        segment = ''
      }
      for (const c of folded) {
        if (STRONG_JOINERS.includes(c)) addSegment()
        else segment += c
      }
      addSegment()
      for (const run of runs) if (run.humps > 1) forms.push(fold(run.text))
    }
  }
  return {kind: 'code', start, end: start + text.length, parts, whole, wholeGerman, forms}
}

/**
 * Cuts the text into chunks, in order: words and code tokens (letters, digits and joiners, joiners trimmed
 * from the ends) and runs of CJK characters. One pass; each chunk costs time in proportion to its length.
 * A plain word — ASCII, no joiner inside, no camel-case hump (`connection`, `Connection`, `ECONNREFUSED`,
 * `E0432`), most of any text — goes to `word` as its place alone, without the work of a code token; a hump
 * needs a capital after the first character and a small letter somewhere, so a word without either has none.
 */
function scan(text: string, word: (start: number, end: number) => void, chunk: (chunk: Chunk) => void): void {
  let kind = SEPARATOR
  let from = 0
  // The current run of letters, digits and joiners: plain so far, its humps' ingredients, where its last letter or digit ends.
  let plain = true
  let laterCapital = false
  let small = false
  let joinerPending = false
  let end = 0
  const flush = (to: number): void => {
    if (kind === ALNUM) {
      if (plain && !(laterCapital && small)) word(from, end)
      else {
        let a = from
        while (a < end && ASCII_CLASS[text.charCodeAt(a)] === JOINER) a++
        const code = a < end ? codeChunk(text.slice(a, end), a) : null
        if (code) chunk(code)
      }
    } else if (kind === CJK) {
      chunk(cjkChunk(text.slice(from, to), from))
    }
    kind = SEPARATOR
  }
  for (let i = 0; i < text.length;) {
    const code = text.charCodeAt(i)
    let width = 1
    let c: number
    if (code < 128) c = ASCII_CLASS[code]!
    else {
      const point = text.codePointAt(i)!
      width = point > 0xffff ? 2 : 1
      c = classOf(point, width === 1 ? text[i]! : text.slice(i, i + 2))
      // Kana voicing marks and Hangul jamo written decomposed belong to the CJK run they follow.
      if (kind === CJK && c === ALNUM && ((point >= 0x3099 && point <= 0x309a) || (point >= 0x1160 && point <= 0x11ff))) c = CJK
    }
    const joiner = c === JOINER
    if (joiner) c = kind === ALNUM ? ALNUM : SEPARATOR
    if (c !== kind) {
      flush(i)
      kind = c
      from = i
      plain = true
      laterCapital = false
      small = false
      joinerPending = false
    }
    if (c === ALNUM) {
      if (joiner) joinerPending = true
      else {
        if (joinerPending || code >= 128) plain = false
        else if (code >= 97) small = true
        else if (code >= 65 && i > from) laterCapital = true
        end = i + width
      }
    }
    i += width
  }
  flush(text.length)
}

/** The chunks of a text, in order (scan), for reading a query. */
export function readChunks(text: string, visit: (chunk: Chunk) => void): void {
  scan(
    text,
    (start, end) => {
      const part = {text: text.slice(start, end).toLowerCase(), german: null, start, end}
      visit({kind: 'code', start, end, parts: [part], whole: null, wholeGerman: null, forms: []})
    },
    visit,
  )
}

/** A CJK run, composed and width-normalised (NFKC); each character keeps its place in the text. */
function cjkChunk(raw: string, start: number): Chunk {
  const composed = raw.normalize('NFKC')
  const chars = Array.from(composed)
  const offsets: number[] = []
  if (composed === raw) {
    let at = start
    for (const c of chars) {
      offsets.push(at)
      at += c.length
    }
  } else {
    // Composition changed the characters: places are spread over the run, good enough for marking matches.
    for (let i = 0; i < chars.length; i++) offsets.push(start + Math.floor((i * raw.length) / chars.length))
  }
  return {kind: 'cjk', start, end: start + raw.length, chars, offsets}
}

/**
 * The tokens of a text, in index order (module comment), each with its term and place. With `stems`, only
 * words whose first character (a UTF-16 code unit of the folded word) it accepts are stemmed; the others
 * are visited with the empty term. Porter never changes a word's first character, so a caller that knows
 * which terms it looks for (the re-ranker) skips the work for words that cannot be one of them.
 */
export function tokenize(text: string, visit: TokenVisitor, stems?: (first: number) => boolean): void {
  const stem = stems === undefined ? stemOf : (word: string): string => (stems(word.charCodeAt(0)) ? stemOf(word) : '')
  const lower = ASCII_ONLY.test(text) ? text.toLowerCase() : null
  const word =
    lower === null
      ? (start: number, end: number): void => visit(stem(text.slice(start, end).toLowerCase()), 'word', start, end)
      : stems === undefined
        ? (start: number, end: number): void => visit(stemOf(lower.slice(start, end)), 'word', start, end)
        : (start: number, end: number): void =>
            visit(stems(lower.charCodeAt(start)) ? stemOf(lower.slice(start, end)) : '', 'word', start, end)
  scan(text, word, (chunk) => {
    if (chunk.kind === 'cjk') {
      const {chars, offsets, end} = chunk
      if (chars.length === 1) visit(chars[0]!, 'gram', offsets[0]!, end)
      for (let i = 0; i + 1 < chars.length; i++)
        visit(chars[i]! + chars[i + 1]!, 'gram', offsets[i]!, i + 2 < offsets.length ? offsets[i + 2]! : end)
      return
    }
    const {parts, start, end} = chunk
    if (parts.length === 1) {
      const p = parts[0]!
      visit(stem(p.text), 'word', start, end)
      if (p.german !== null) visit(stem(p.german), 'form', start, end)
      return
    }
    if (chunk.whole !== null) {
      visit(chunk.whole, 'whole', start, end)
      if (chunk.wholeGerman !== null) visit(chunk.wholeGerman, 'form', start, end)
    }
    for (const p of parts) visit(stem(p.text), 'part', p.start, p.end)
    for (const p of parts) if (p.german !== null) visit(stem(p.german), 'form', p.start, p.end)
    for (const form of chunk.forms) visit(form, 'form', start, end)
  })
}

/** An entry's tags as the one text their field is read from, by every driver and the re-ranker. */
export function tagsText(tags: readonly string[]): string {
  return tags.join(' ')
}

/** The index terms of a text, in order: what a driver's full-text index holds for it. */
export function indexTerms(text: string): string[] {
  const out: string[] = []
  tokenize(text, (term) => out.push(term))
  return out
}

/** The index terms as one string, separated by spaces (no term holds whitespace): SQLite's FTS5 columns take this. */
export function indexText(text: string): string {
  return indexTerms(text).join(' ')
}
