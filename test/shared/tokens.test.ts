/**
 * @module Bounded token counting (src/shared/tokens.ts): `tokensWithin` is the exact count for ordinary
 * text, never less than the exact count for any text (so a budget is never exceeded), answers null exactly
 * when its count passes the limit, and costs a few ms on 100,000 characters of any shape.
 */
import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import {countTokens, countUpTo, tokensWithin} from '../../src/shared/tokens.js'

const words = [
  'the',
  'daemon',
  'crashed',
  'postmortem',
  'ECONNRESET',
  'max_idle_conns',
  '10.0.3.17:5432',
  'https://github.com/acme/api/issues/4711',
  '<|endoftext|>',
  '字文',
  '😀',
  'é',
  '\n',
  '\t',
  '  ',
  '"',
  '\\',
  '{',
  '}',
  ':',
  ',',
]
/** Text like entries hold: words, identifiers, URLs, numbers, CJK, emoji, JSON punctuation, special-token look-alikes. */
const ordinary = fc.array(fc.constantFrom(...words), {maxLength: 400}).map((ws) => ws.join(' '))
/** Text with pieces of every length, including ones past the exact-count limits. */
const anyText = fc.oneof(
  ordinary,
  fc.string({unit: 'binary', maxLength: 300}),
  fc
    .tuple(fc.constantFrom('x', 'ab', '字', '[', ' ', '😀', 'Q'), fc.integer({min: 1, max: 1500}), ordinary)
    .map(([u, n, t]) => `${t}${u.repeat(n)}${t}`),
)

describe('tokensWithin', () => {
  it('is the exact count for ordinary text, and null exactly when that passes the limit', () => {
    fc.assert(
      fc.property(ordinary, fc.integer({min: 0, max: 3000}), (text, limit) => {
        const exact = countTokens(text)
        expect(tokensWithin(text, Number.MAX_SAFE_INTEGER)).toBe(exact)
        expect(tokensWithin(text, limit)).toBe(exact <= limit ? exact : null)
      }),
      {numRuns: 300},
    )
  })

  it('never counts less than the tokenizer, on any text', () => {
    fc.assert(
      fc.property(anyText, (text) => {
        const bound = tokensWithin(text, Number.MAX_SAFE_INTEGER)!
        expect(bound).toBeGreaterThanOrEqual(countTokens(text))
        expect(bound).toBeLessThanOrEqual(Buffer.byteLength(text))
      }),
      {numRuns: 300},
    )
  })

  it('counts JSON items of search hits exactly, up to 16,384 characters of prose', () => {
    const body = Array.from(
      {length: 300},
      (_, i) => `Under load the connection pool of worker ${i} leaked sockets until it was restarted.`,
    ).join('\n')
    const item = JSON.stringify({
      id: '0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7980',
      title: 'Pool leak',
      body: body.slice(0, 16_000),
      status: 'open',
      score: 1.5,
    })
    expect(item.length).toBeGreaterThan(16_000)
    expect(tokensWithin(item, 1_000_000)).toBe(countTokens(item))
    // Past that, an upper estimate: more than exact, at most a token per byte.
    const long = JSON.stringify({body})
    expect(tokensWithin(long, 1_000_000)).toBeGreaterThan(countTokens(long))
  })

  const word8 = (i: number): string => Array.from({length: 8}, (_, j) => String.fromCharCode(97 + ((i * 31 + j * 7919) % 26))).join('')
  const SHAPES: Record<string, string> = {
    'one 99,000-letter word': 'a'.repeat(99_000),
    'random letters': Array.from({length: 100_000}, (_, i) => String.fromCharCode(97 + ((i * 7919) % 26))).join(''),
    'random 8-letter words': Array.from({length: 11_000}, (_, i) => word8(i)).join(' '),
    '99,999 [': '['.repeat(99_999),
    '100,000 spaces': ' '.repeat(100_000),
    CJK: '字文中日本語漢'.repeat(14_000),
    emoji: '😀🚀'.repeat(25_000),
    'a a a': 'a '.repeat(50_000),
  }

  it.each(Object.entries(SHAPES))('costs a few ms on %s (100,000 characters)', (_name, text) => {
    const json = JSON.stringify({body: text})
    for (const limit of [10, 1_000_000]) {
      const started = performance.now()
      tokensWithin(json, limit)
      // A few ms on an idle machine; the bound leaves room for a loaded one. Whole encoding took up to 30 s.
      expect(performance.now() - started, `limit ${limit}`).toBeLessThan(250)
    }
  })
})

describe('countUpTo', () => {
  it('is the exact count while within the limit and over it past the limit, however often a piece was counted before', () => {
    fc.assert(
      fc.property(ordinary, fc.integer({min: 0, max: 3000}), (text, limit) => {
        const exact = countTokens(text)
        // Twice: the second count reads the remembered pieces.
        for (let i = 0; i < 2; i++) {
          expect(countUpTo(text, Number.MAX_SAFE_INTEGER)).toBe(exact)
          const n = countUpTo(text, limit)
          if (exact <= limit) expect(n).toBe(exact)
          else expect(n).toBeGreaterThan(limit)
        }
      }),
      {numRuns: 300},
    )
  })
})
