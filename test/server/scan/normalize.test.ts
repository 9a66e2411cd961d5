/**
 * The scanner reads text as a reader sees it (issue 24; docs/security.md, "What is found"): a token with a
 * zero-width space or a soft hyphen inside, in fullwidth letters, with a Markdown-escaped underscore, as HTML
 * entities or percent-encoded is found, and the finding points at the original characters (so redaction
 * removes all of them). Hostile texts of each shape stay linear.
 */
import {describe, expect, it} from 'vitest'
import {scanText} from '../../../server/scan/scanner.js'
import {fakeCorpus} from './fake-corpus.js'

const corpus = fakeCorpus(2424)
const pat = corpus.find((s) => s.kind === 'github-pat')!.secret
const aws = corpus.find((s) => s.kind === 'aws-access-token')!.secret

const fullwidth = (s: string): string =>
  Array.from(s, (c) => (c >= '!' && c <= '~' ? String.fromCharCode(c.charCodeAt(0) + 0xfee0) : c)).join('')
const entities = (s: string): string => Array.from(s, (c) => `&#${c.charCodeAt(0)};`).join('')
const percent = (s: string): string => Array.from(s, (c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`).join('')

const DISGUISED: Array<[string, string]> = [
  ['zero-width space', `${pat.slice(0, 10)}\u200b${pat.slice(10)}`],
  ['soft hyphen', `${pat.slice(0, 6)}\u00ad${pat.slice(6, 20)}\u00ad${pat.slice(20)}`],
  ['fullwidth letters', fullwidth(pat)],
  ['Markdown-escaped underscore', pat.replace('_', '\\_')],
  ['decimal HTML entities', entities(pat)],
  ['named entity for the underscore', pat.replace('_', '&lowbar;')],
  ['percent-encoding', percent(pat)],
  ['hex entities, an AWS key', Array.from(aws, (c) => `&#x${c.charCodeAt(0).toString(16)};`).join('')],
]

describe('disguised tokens', () => {
  for (const [name, disguised] of DISGUISED) {
    it(`${name}: found, spanning the original characters`, () => {
      const text = `token: ${disguised} (from the CI log)`
      const found = scanText(text)
      expect(found, name).toHaveLength(1)
      expect(found[0]!.kind).toBe(name.includes('AWS') ? 'aws-access-token' : 'github-pat')
      expect(text.slice(found[0]!.start, found[0]!.end)).toBe(disguised)
    })
  }

  it('plain text with entities, escapes and percent signs finds nothing', () => {
    const text = 'Use \\_private names, 100% &amp; more: &lt;b&gt; and a%20b, &#x1F600; ｆｕｌｌ ｗｉｄｔｈ prose.'
    expect(scanText(text)).toEqual([])
  })
})

describe('linear whatever the text', () => {
  const cpu = (f: () => void): number => {
    const t = process.cpuUsage()
    f()
    const d = process.cpuUsage(t)
    return (d.user + d.system) / 1000
  }
  const SHAPES: Record<string, (n: number) => string> = {
    '& without ;': (n) => '&'.repeat(n),
    '&#1 almost entities': (n) => '&#1'.repeat(Math.floor(n / 3)),
    '% almost encodings': (n) => '%4'.repeat(Math.floor(n / 2)),
    backslashes: (n) => '\\'.repeat(n),
    'zero-width spaces': (n) => '\u200b'.repeat(n),
    'fullwidth ghp_': (n) => fullwidth('ghp_').repeat(Math.floor(n / 4)),
    'escaped ghp\\_': (n) => 'ghp\\_'.repeat(Math.floor(n / 5)),
  }
  for (const [name, make] of Object.entries(SHAPES)) {
    it(name, () => {
      const small = make(25_000)
      const large = make(100_000)
      scanText(small)
      // Best of three, to keep a loaded machine's noise out: four times the text, under eight times the CPU.
      const a = Math.min(...[0, 1, 2].map(() => cpu(() => scanText(small))))
      const b = Math.min(...[0, 1, 2].map(() => cpu(() => scanText(large))))
      expect(b, `${name}: ${a.toFixed(1)} ms → ${b.toFixed(1)} ms`).toBeLessThan(Math.max(8 * a, 40))
    })
  }
})
