/**
 * @module The linear Markdown scanner (src/shared/markdown.ts, markdown-inline.ts, chars.ts): it gives the
 * same text as the regular expressions it replaced (test/shared/markdown-legacy.ts) on any input, and
 * each input shape that made those backtrack takes linear time at 100,000 characters.
 */
import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import {isLineTerminator, isSpace, trimTrailingSlashes, wordCodePointAt} from '../../src/shared/chars.js'
import {firstParagraph} from '../../src/shared/markdown.js'
import {stripInline} from '../../src/shared/markdown-inline.js'
import {legacyFirstParagraph, legacyStripInline} from './markdown-legacy.js'

// Every character the expressions treat specially, white space of each kind, letters of several scripts,
// astral characters and lone surrogates: random strings over it reach the corners of every pass.
const TRICKY = [
  '*',
  '**',
  '_',
  '__',
  '~',
  '~~',
  '`',
  '```',
  '[',
  ']',
  '(',
  ')',
  '!',
  '![',
  '<',
  '>',
  '/',
  '#',
  '-',
  '=',
  '+',
  '.',
  ':',
  '<http://',
  '<https://',
  '<a',
  '</b',
  '1.',
  '12)',
  '1234567890.',
  ' ',
  '  ',
  '   ',
  '    ',
  '\t',
  '\n',
  '\r',
  '\r\n',
  '\u00a0',
  '\u2028',
  '\u2029',
  '\u3000',
  'a',
  'B',
  'z9',
  'é',
  '字',
  'ß',
  '٣',
  '😀',
  '𝐀',
  '\ud800',
  '\udc00',
  'http',
  's',
  '|',
]
const tricky = fc.array(fc.constantFrom(...TRICKY), {maxLength: 60}).map((parts) => parts.join(''))
/** Lines that look like Markdown blocks, so the block scanner's branches are all taken. */
const blockLine = fc.oneof(
  tricky,
  fc
    .tuple(
      fc.constantFrom('', ' ', '   ', '    ', '\t'),
      fc.constantFrom('#', '##', '######', '#######', '>', '> >', '```', '~~~', '---', '***', '___', '===', '- - -', '* * *x'),
      tricky,
    )
    .map(([indent, mark, rest]) => indent + mark + rest),
)
const blocks = fc.array(blockLine, {maxLength: 8}).map((lines) => lines.join('\n'))

describe('the linear scanner gives what the regular expressions gave', () => {
  it('stripInline, on any string over the special characters', () => {
    fc.assert(
      fc.property(tricky, (s) => {
        expect(stripInline(s)).toBe(legacyStripInline(s))
      }),
      {numRuns: 20_000},
    )
  })

  it('firstParagraph, on any sequence of block-like lines', () => {
    fc.assert(
      fc.property(blocks, (s) => {
        expect(firstParagraph(s)).toBe(legacyFirstParagraph(s))
      }),
      {numRuns: 20_000},
    )
  })

  it('firstParagraph, on any unicode text', () => {
    fc.assert(
      fc.property(fc.string({unit: 'binary', maxLength: 200}), (s) => {
        expect(firstParagraph(s)).toBe(legacyFirstParagraph(s))
      }),
      {numRuns: 5000},
    )
  })

  it('fixed cases from the summary tests and CommonMark corners', () => {
    const cases = [
      '# Port 7411 in use\n\nThe **daemon** fails: see [the issue](https://github.com/acme/kb/issues/1).',
      '## Only a heading ##',
      '#  #',
      '# a \u2028b',
      '# foo #bar',
      '# foo ##  ',
      '####### seven',
      '   # indented',
      '    # code',
      'Setext heading\n==============\n\n_Body_ text',
      '> quoted **bold** line\n> more',
      '- one\n- two __strong__',
      '<p>html <em>tags</em> go</p>',
      'Raise max_idle_conns, not _pool_size_; call __init__ once',
      '<|im_start|> _a_ <|endoftext|>',
      '***a***',
      '**a**b**',
      '*a*b*',
      '_a_b_',
      '``a``',
      '``',
      '`a',
      'a ``b',
      '[a](b) ![c](d) [e][f] ![g][h] <http://x> <https://y z>',
      '1. one 2) two 1234567890. ten - - a',
      '\u2028> q',
      '😀_a_😀',
      '字__b__字',
      '\ud800__c__',
    ]
    for (const c of cases) expect(firstParagraph(c), JSON.stringify(c)).toBe(legacyFirstParagraph(c))
  })
})

describe('character classes', () => {
  it('isSpace and isLineTerminator agree with \\s and the line terminators on every UTF-16 unit', () => {
    const wrong: string[] = []
    for (let c = 0; c <= 0xffff; c++) {
      const ch = String.fromCharCode(c)
      if (isSpace(c) !== /\s/.test(ch) || isLineTerminator(c) !== /[\n\r\u2028\u2029]/.test(ch)) wrong.push(c.toString(16))
    }
    expect(wrong).toEqual([])
    expect(isSpace(0x3000) && isSpace(0x0b) && !isSpace(0x200b) && isLineTerminator(0x2029)).toBe(true)
  })

  it('wordCodePointAt reads whole code points', () => {
    expect(['a', '_', '٣', '字', '𝐀'].map((s) => wordCodePointAt(s, 0))).toEqual([true, true, true, true, true])
    expect(['-', ' ', '😀', '\ud800', ''].map((s) => wordCodePointAt(s, 0))).toEqual([false, false, false, false, false])
  })

  it('trimTrailingSlashes removes only trailing slashes, in linear time', () => {
    expect(['a/b//', '///', 'a', '', '/a/'].map(trimTrailingSlashes)).toEqual(['a/b', '', 'a', '', '/a'])
    const started = performance.now()
    expect(trimTrailingSlashes('/'.repeat(100_000) + 'x')).toHaveLength(100_001)
    expect(performance.now() - started).toBeLessThan(100)
  })
})

/** Each shape of input that made the old expressions backtrack, at 100,000 characters. */
export const HOSTILE_MARKDOWN: Record<string, string> = {
  'heading + spaces': `# a${' '.repeat(99_995)}b`,
  'heading + tabs + #': `# a${' \t'.repeat(49_990)}#x`,
  'spaces and tabs': ' \t'.repeat(49_999) + 'x',
  '[ × 99,999': '['.repeat(99_999),
  '![ × 49,999': '!['.repeat(49_999),
  '[a]( × 33,333': '[a]('.repeat(25_000),
  '<a × 49,999': '<a'.repeat(49_999),
  '<http:// × 12,500': '<http://'.repeat(12_500),
  '**a × 24,999': '**a '.repeat(24_999),
  '__a × 24,999': ' __a'.repeat(24_999),
  '*a × 33,333': '*a '.repeat(33_333),
  '_a × 33,333': ' _a'.repeat(33_333),
  '~~a × 24,999': '~~a '.repeat(24_999),
  '` × 99,999 spaced': '` '.repeat(49_999),
  '- - - … x': '- '.repeat(49_999) + 'x',
  '> > > …': '> '.repeat(49_999) + 'x',
  '1. 1. 1. …': '1. '.repeat(33_333),
  '```': '```\n' + 'x\n'.repeat(49_990),
}

describe('linear time on hostile shapes', () => {
  it.each(Object.entries(HOSTILE_MARKDOWN))('%s', (_name, body) => {
    const started = performance.now()
    firstParagraph(body)
    // Well under a second even on a loaded machine: the old code took from 3 s to minutes.
    expect(performance.now() - started).toBeLessThan(500)
  })
})
