/**
 * @module The Porter stemmer exactly as SQLite's FTS5 `porter` tokenizer applies it (ext/fts5/fts5_tokenize.c),
 * so that re-ranking in TypeScript sees the same terms as the index: a word of fewer than 3 or more than
 * 64 UTF-8 bytes is left alone, and the rules work on bytes (non-ASCII letters count as consonants).
 */

const MAX_TOKEN_BYTES = 64

function isVowel(c: string, yIsVowel: boolean): boolean {
  return c === 'a' || c === 'e' || c === 'i' || c === 'o' || c === 'u' || (yIsVowel && c === 'y')
}

/** Skips one vowel run then one consonant run of s[from, to); returns the index after it, or 0 if none. */
function gobbleVC(s: string, from: number, to: number, prevCons: boolean): number {
  let cons = prevCons
  let i = from
  for (; i < to; i++) {
    cons = !isVowel(s[i]!, cons)
    if (!cons) break
  }
  for (i++; i < to; i++) {
    cons = !isVowel(s[i]!, cons)
    if (cons) return i + 1
  }
  return 0
}

/** m > 0 for the stem s[0, n). */
function mGt0(s: string, n: number): boolean {
  return gobbleVC(s, 0, n, false) !== 0
}

/** m > 1 for the stem s[0, n). */
function mGt1(s: string, n: number): boolean {
  const k = gobbleVC(s, 0, n, false)
  return k !== 0 && gobbleVC(s, k, n, true) !== 0
}

/** m = 1 for the stem s[0, n). */
function mEq1(s: string, n: number): boolean {
  const k = gobbleVC(s, 0, n, false)
  return k !== 0 && gobbleVC(s, k, n, true) === 0
}

/** *o: the stem ends consonant-vowel-consonant, the last not w, x or y. */
function oStar(s: string, n: number): boolean {
  const last = s[n - 1]
  if (last === 'w' || last === 'x' || last === 'y') return false
  let mask = 0
  let cons = false
  for (let i = 0; i < n; i++) {
    cons = !isVowel(s[i]!, cons)
    mask = ((mask << 1) + (cons ? 1 : 0)) & 0xffff
  }
  return (mask & 7) === 5
}

/** *v*: the stem holds a vowel. */
function hasVowel(s: string, n: number): boolean {
  for (let i = 0; i < n; i++) if (isVowel(s[i]!, i > 0)) return true
  return false
}

type Condition = (s: string, n: number) => boolean
/** [suffix, condition on the stem before it, replacement]; the first suffix that matches decides. */
type Rule = readonly [string, Condition, string]

const mGt1SorT: Condition = (s, n) => (s[n - 1] === 's' || s[n - 1] === 't') && mGt1(s, n)

const STEP2: Rule[] = [
  ['ational', mGt0, 'ate'],
  ['tional', mGt0, 'tion'],
  ['enci', mGt0, 'ence'],
  ['anci', mGt0, 'ance'],
  ['izer', mGt0, 'ize'],
  ['logi', mGt0, 'log'],
  ['bli', mGt0, 'ble'],
  ['alli', mGt0, 'al'],
  ['entli', mGt0, 'ent'],
  ['eli', mGt0, 'e'],
  ['ousli', mGt0, 'ous'],
  ['ization', mGt0, 'ize'],
  ['ation', mGt0, 'ate'],
  ['ator', mGt0, 'ate'],
  ['alism', mGt0, 'al'],
  ['iveness', mGt0, 'ive'],
  ['fulness', mGt0, 'ful'],
  ['ousness', mGt0, 'ous'],
  ['aliti', mGt0, 'al'],
  ['iviti', mGt0, 'ive'],
  ['biliti', mGt0, 'ble'],
]
const STEP3: Rule[] = [
  ['ical', mGt0, 'ic'],
  ['ness', mGt0, ''],
  ['icate', mGt0, 'ic'],
  ['iciti', mGt0, 'ic'],
  ['ful', mGt0, ''],
  ['ative', mGt0, ''],
  ['alize', mGt0, 'al'],
]
const STEP4: Rule[] = [
  ['al', mGt1, ''],
  ['ance', mGt1, ''],
  ['ence', mGt1, ''],
  ['er', mGt1, ''],
  ['ic', mGt1, ''],
  ['able', mGt1, ''],
  ['ible', mGt1, ''],
  ['ant', mGt1, ''],
  ['ement', mGt1, ''],
  ['ment', mGt1, ''],
  ['ent', mGt1, ''],
  ['ion', mGt1SorT, ''],
  ['ou', mGt1, ''],
  ['ism', mGt1, ''],
  ['ate', mGt1, ''],
  ['iti', mGt1, ''],
  ['ous', mGt1, ''],
  ['ive', mGt1, ''],
  ['ize', mGt1, ''],
]

/**
 * Groups rules by their suffix's second-to-last letter, as FTS5's generated code switches on it: only
 * the first rule of the group whose suffix matches (and is shorter than the word) is tried.
 */
function bySecondLast(rules: Rule[]): Map<string, Rule[]> {
  const m = new Map<string, Rule[]>()
  for (const r of rules) {
    const key = r[0][r[0].length - 2]!
    if (!m.has(key)) m.set(key, [])
    m.get(key)!.push(r)
  }
  return m
}
const STEP2_BY = bySecondLast(STEP2)
const STEP3_BY = bySecondLast(STEP3)
const STEP4_BY = bySecondLast(STEP4)

function applyStep(s: string, groups: Map<string, Rule[]>): string {
  const rules = groups.get(s[s.length - 2] ?? '')
  if (!rules) return s
  for (const [suffix, cond, repl] of rules) {
    if (s.length > suffix.length && s.endsWith(suffix)) {
      const n = s.length - suffix.length
      return cond(s, n) ? s.slice(0, n) + repl : s
    }
  }
  return s
}

function stemBytes(word: string): string {
  let s = word
  // Step 1a
  if (s.endsWith('s')) {
    if (s[s.length - 2] === 'e') {
      const n = s.length
      s = (n > 4 && s[n - 4] === 's' && s[n - 3] === 's') || (n > 3 && s[n - 3] === 'i') ? s.slice(0, -2) : s.slice(0, -1)
    } else if (s[s.length - 2] !== 's') {
      s = s.slice(0, -1)
    }
  }
  // Step 1b
  let removed = false
  const second = s[s.length - 2]
  if (second === 'e') {
    if (s.length > 3 && s.endsWith('eed')) {
      if (mGt0(s, s.length - 3)) s = s.slice(0, -1)
    } else if (s.length > 2 && s.endsWith('ed') && hasVowel(s, s.length - 2)) {
      s = s.slice(0, -2)
      removed = true
    }
  } else if (second === 'n' && s.length > 3 && s.endsWith('ing') && hasVowel(s, s.length - 3)) {
    s = s.slice(0, -3)
    removed = true
  }
  if (removed) {
    const tail = s.slice(-2)
    if (s.length > 2 && (tail === 'at' || tail === 'bl' || tail === 'iz')) {
      s += 'e'
    } else {
      const c = s[s.length - 1]!
      if (!isVowel(c, false) && c !== 'l' && c !== 's' && c !== 'z' && c === s[s.length - 2]) s = s.slice(0, -1)
      else if (mEq1(s, s.length) && oStar(s, s.length)) s += 'e'
    }
  }
  // Step 1c
  if (s.endsWith('y') && hasVowel(s, s.length - 1)) s = `${s.slice(0, -1)}i`
  s = applyStep(s, STEP2_BY)
  s = applyStep(s, STEP3_BY)
  s = applyStep(s, STEP4_BY)
  // Step 5a
  if (s.endsWith('e')) {
    const n = s.length - 1
    if (mGt1(s, n) || (mEq1(s, n) && !oStar(s, n))) s = s.slice(0, n)
  }
  // Step 5b
  if (s.length > 1 && s.endsWith('ll') && mGt1(s, s.length - 1)) s = s.slice(0, -1)
  return s
}

/** The FTS5 Porter stem of a lower-case, accent-free token. */
export function porterStem(token: string): string {
  const ascii = /^[\x00-\x7f]*$/.test(token)
  const bytes = ascii ? token : Buffer.from(token, 'utf8').toString('latin1')
  if (bytes.length < 3 || bytes.length > MAX_TOKEN_BYTES) return token
  const stemmed = stemBytes(bytes)
  return ascii ? stemmed : Buffer.from(stemmed, 'latin1').toString('utf8')
}
