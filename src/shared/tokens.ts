/**
 * @module Token counts in o200k_base as gpt-tokenizer counts them (docs/api.md, "Detail levels" and "Search"),
 * with bounded work: byte-pair encoding is quadratic in a piece without spaces (99,000 letters took 12 s),
 * so text of any size is counted by `tokensWithin`, exactly while that is cheap and with a safe upper
 * estimate beyond. Like summary.ts it loads the tokenizer: import it only where tokens are counted.
 */
import {countTokens as rawCount} from 'gpt-tokenizer/encoding/o200k_base'
import {O200K_TOKEN_SPLIT_REGEX} from 'gpt-tokenizer/encodingParams/constants'

// Text that looks like a special token (e.g. "<|endoftext|>") is ordinary text in an entry.
const ENCODE_OPTIONS = {disallowedSpecial: new Set<string>()}

/** Exact tokens of `text`; the caller bounds its size and its longest word (the summary's are at most 3,200 characters). */
export function countTokens(text: string): number {
  return rawCount(text, ENCODE_OPTIONS)
}

/**
 * Exact tokens of `text` while at most `limit`; past that it stops and answers some number over `limit`. Sizes as for
 * `countTokens`. Counted piece by piece (the tokenizer encodes each piece of its pre-split on its own, so the sum is
 * the count), each piece's count remembered: a summary counts the same words several times while it looks for its
 * cut, and an import summarises every entry (issue 30: 0.66 ms of CPU per entry of 1 KB before).
 */
export function countUpTo(text: string, limit: number): number {
  let total = 0
  for (const m of text.matchAll(O200K_TOKEN_SPLIT_REGEX)) {
    total += pieceTokens(m[0])
    if (total > limit) return total
  }
  return total
}

/** Pieces whose counts are remembered, at most; the memory is emptied when full (it refills with the common words). */
const MEMO_PIECES = 65_536
/** Longer pieces are counted each time (rare, and they would crowd the memory). */
const MEMO_PIECE_CHARS = 48
const memo = new Map<string, number>()

function pieceTokens(piece: string): number {
  if (piece.length > MEMO_PIECE_CHARS) return rawCount(piece, ENCODE_OPTIONS)
  let n = memo.get(piece)
  if (n === undefined) {
    n = rawCount(piece, ENCODE_OPTIONS)
    if (memo.size >= MEMO_PIECES) memo.clear()
    memo.set(piece, n)
  }
  return n
}

/**
 * The end (UTF-16 index) of the longest run of whole pieces from the start of `text` whose tokens, counted
 * piece by piece, stay within `limit`; it stops before a piece longer than 128 characters.
 */
export function piecesWithin(text: string, limit: number): number {
  let total = 0
  let end = 0
  for (const m of text.matchAll(O200K_TOKEN_SPLIT_REGEX)) {
    if (m[0].length > LONG_PIECE) break
    total += pieceTokens(m[0])
    if (total > limit) break
    end = m.index + m[0].length
  }
  return end
}

/** Pieces (the tokenizer's pre-split: a word, a number, a run of punctuation or spaces) longer than this are not encoded. */
const LONG_PIECE = 128
/** Characters and pieces counted exactly, at most, per call… */
const EXACT_CHARS = 16_384
const EXACT_PIECES = 4_096
/** …and tokens that pieces may add by byte-pair merges (each costs a few µs; a dictionary word adds none). */
const MERGED_TOKENS = 2_000
/** Pieces are encoded in runs of about this many characters (fewer where a small limit may stop the count early). */
const RUN_CHARS = 512

/**
 * The tokens of `text` if they are at most `limit`, else null. Exact for text of up to 16,384 characters
 * (4,096 pieces) without pathological words; beyond that, and for a piece longer than 128 characters, each
 * byte counts as a token, which no token is shorter than, so the count never falls short and a budget is
 * never exceeded. Costs a few ms at most, however long the text, and stops once `limit` is passed.
 */
export function tokensWithin(text: string, limit: number): number | null {
  let total = 0
  let merges = MERGED_TOKENS
  let runStart = 0
  let runPieces = 0
  let pieces = 0
  // Splitting between pieces keeps the count: the tokenizer encodes each piece on its own.
  const countRun = (end: number): void => {
    if (end <= runStart) return
    const n = rawCount(text.slice(runStart, end), ENCODE_OPTIONS)
    total += n
    merges -= n - runPieces
  }
  for (const m of text.matchAll(O200K_TOKEN_SPLIT_REGEX)) {
    const at = m.index
    const piece = m[0]
    const long = piece.length > LONG_PIECE
    if (long || at - runStart >= RUN_CHARS) {
      countRun(at)
      runStart = at
      runPieces = 0
      if (total > limit) return null
      if (at >= EXACT_CHARS || pieces >= EXACT_PIECES || merges <= 0) {
        total += Buffer.byteLength(text.slice(at))
        return total <= limit ? total : null
      }
    }
    if (long) {
      total += Buffer.byteLength(piece)
      runStart = at + piece.length
    } else {
      runPieces++
      pieces++
    }
  }
  countRun(text.length)
  return total <= limit ? total : null
}
