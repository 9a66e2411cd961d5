/**
 * The scanner's cost is linear in the text whatever the text holds (docs/security.md, "Safe publish"): every
 * pattern it runs has only bounded, un-nested quantifiers and is tried only at a literal anchor; and bodies
 * built to make a backtracking or re-scanning detector go quadratic — anchors repeated, runs that almost
 * match, each detector's worst case — scan 100,000 characters in time proportional to 25,000.
 */
import {readFileSync} from 'node:fs'
import {resolve} from 'node:path'
import {describe, expect, it} from 'vitest'
import {TOKEN_RULES} from '../../../server/scan/token-rules.js'
import {scanText} from '../../../server/scan/scanner.js'

/** The quantifiers of a pattern's source, outside character classes: `*`, `+`, `?`, `{n}`, `{n,}`, `{n,m}`. */
function quantifiers(source: string): Array<{q: string; depth: number}> {
  const out: Array<{q: string; depth: number}> = []
  let depth = 0
  let inClass = false
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!
    if (c === '\\') {
      i++
      continue
    }
    if (inClass) {
      if (c === ']') inClass = false
      continue
    }
    if (c === '[') inClass = true
    else if (c === '(') depth++
    else if (c === ')') {
      depth--
      // A quantified group: its body may not hold an unbounded or a nested quantifier (checked below by depth).
      const q = /^(?:[*+?]|\{\d+(?:,\d*)?\})/.exec(source.slice(i + 1))
      if (q) {
        out.push({q: `)${q[0]}`, depth})
        i += q[0].length
      }
    } else if (c === '*' || c === '+') out.push({q: c, depth})
    else if (c === '{') {
      const q = /^\{\d+(?:,\d*)?\}/.exec(source.slice(i))
      if (q) out.push({q: q[0], depth})
    }
  }
  return out
}

/** The regular expression literals of a source file (after `=`, `re:` or `(`), read with their character classes. */
function literals(source: string): string[] {
  const out: string[] = []
  for (const m of source.matchAll(/(?:=|re:|\()\s*\//g)) {
    let i = m.index + m[0].length
    let inClass = false
    let body = ''
    for (; i < source.length && source[i] !== '\n'; i++) {
      const c = source[i]!
      if (c === '\\') {
        body += c + source[++i]
        continue
      }
      if (c === '[') inClass = true
      else if (c === ']') inClass = false
      else if (c === '/' && !inClass) break
      body += c
    }
    if (source[i] === '/' && body !== '') out.push(body)
  }
  return out
}

function sourcePatterns(): string[] {
  const files = ['token-rules.ts', 'detectors.ts', 'personal.ts', 'scanner.ts', 'chars.ts'].map((f) =>
    resolve(import.meta.dirname, '../../../server/scan', f),
  )
  return files.flatMap((f) => literals(readFileSync(f, 'utf8')))
}

describe('patterns', () => {
  it('finds the patterns it checks (positive control)', () => {
    expect(sourcePatterns().length).toBeGreaterThan(TOKEN_RULES.length)
    expect(literals('const R = /[a/b]{1,2}x/y')).toEqual(['[a/b]{1,2}x'])
    expect(quantifiers('a+(b{1,3})*[x*]')).toEqual([
      {q: '+', depth: 0},
      {q: '{1,3}', depth: 1},
      {q: ')*', depth: 0},
    ])
  })

  const all = [...TOKEN_RULES.map((r) => [r.kind, r.re.source]), ...sourcePatterns().map((s) => ['literal', s])]
  it.each(all)('%s: bounded, un-nested quantifiers only', (_kind, source) => {
    const qs = quantifiers(source)
    expect(
      qs.filter((q) => q.q === '*' || q.q === '+' || /,\}$/.test(q.q)),
      source,
    ).toEqual([])
    // A quantified group may hold no quantifier of its own: `(?:a{1,9}){1,9}` multiplies its bounds.
    const groupQuantified = qs.some((q) => q.q.startsWith(')') && q.q !== ')?')
    if (groupQuantified) expect(qs.filter((q) => q.depth > 0).length, source).toBe(0)
  })

  it('every token rule is sticky (tried only where its keyword is)', () => {
    for (const r of TOKEN_RULES) expect(r.re.sticky, r.kind).toBe(true)
  })
})

/** Bodies that would make a careless detector quadratic, each a function of its length. */
const HOSTILE: Record<string, (n: number) => string> = {
  'one letter': (n) => 'a'.repeat(n),
  'at signs': (n) => '@'.repeat(n),
  'long local parts': (n) => `${'a'.repeat(64)}@`.repeat(Math.ceil(n / 65)),
  'local parts and domains': (n) => 'a.b@c.d'.repeat(Math.ceil(n / 7)),
  'JWT headers': (n) => 'eyJ'.repeat(Math.ceil(n / 3)),
  'JWTs that never close': (n) => `eyJhbGciOiJIUzI1NiJ9.ey${'/eyJhbGciOiJIUzI1NiJ9'.repeat(Math.ceil(n / 21))}`,
  'JWT-like runs': (n) => ` ey${'A'.repeat(5000)}.ey${'B'.repeat(5000)}`.repeat(Math.ceil(n / 10_006)),
  'key headers without end': (n) => '-----BEGIN RSA PRIVATE KEY-----\n'.repeat(Math.ceil(n / 32)),
  'key bodies without end': (n) => `-----BEGIN PRIVATE KEY-----\n${'A'.repeat(20_000)}\n`.repeat(Math.ceil(n / 20_029)),
  'key headers that almost match': (n) => `-----BEGIN ${'A '.repeat(49)}PRIVATE KE`.repeat(Math.ceil(n / 119)),
  schemes: (n) => '://'.repeat(Math.ceil(n / 3)),
  authorities: (n) => `a://${'u:p'.repeat(200)}`.repeat(Math.ceil(n / 604)),
  'password keys': (n) => ';password='.repeat(Math.ceil(n / 10)),
  'password values': (n) => `;password=${'x'.repeat(127)}`.repeat(Math.ceil(n / 137)),
  'generic keys': (n) => 'key='.repeat(Math.ceil(n / 4)),
  'generic names and values': (n) => `api_token${' '.repeat(19)}"'= "'${'aB3'.repeat(60)}!`.repeat(Math.ceil(n / 213)),
  'keywords in one name': (n) => 'secret_token_password_api_key_'.repeat(Math.ceil(n / 30)),
  'plus signs': (n) => '+1 '.repeat(Math.ceil(n / 3)),
  'long phone-like runs': (n) => '+1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 '.repeat(Math.ceil(n / 32)),
  'brackets and digits': (n) => '(415) 555-'.repeat(Math.ceil(n / 10)),
  'dotted digits': (n) => '1.'.repeat(Math.ceil(n / 2)),
  octets: (n) => '255.'.repeat(Math.ceil(n / 4)),
  'colons and hex': (n) => 'ff:'.repeat(Math.ceil(n / 3)),
  'double colons': (n) => 'a::'.repeat(Math.ceil(n / 3)),
  'AWS prefixes': (n) => 'AKIA'.repeat(Math.ceil(n / 4)),
  'token prefixes': (n) => 'ghp_xoxb-sk_live_npm_glpat-SK'.repeat(Math.ceil(n / 29)),
  'Slack digits': (n) => `xoxb-${'1'.repeat(14)}-`.repeat(Math.ceil(n / 20)),
  'bearer words': (n) => 'Authorization: Bearer '.repeat(Math.ceil(n / 22)),
  'azure anchors': (n) => 'abc1Q~'.repeat(Math.ceil(n / 6)),
  'mixed anchors': (n) => 'a@b.io://x:y@1.2.3.4+1(555)eyJ-----BEGIN key=token:'.repeat(Math.ceil(n / 50)),
}

/** The least CPU time (ms) of several scans of each text, measured alternately so a busy machine weighs on both alike. */
function cpuTimes(texts: string[], runs = 7): number[] {
  const best = texts.map(() => Infinity)
  for (let r = 0; r < runs; r++) {
    texts.forEach((text, i) => {
      const before = process.cpuUsage()
      scanText(text)
      const used = process.cpuUsage(before)
      best[i] = Math.min(best[i]!, (used.user + used.system) / 1000)
    })
  }
  return best
}

describe('hostile bodies scan in linear time', () => {
  // Warm the JIT so the first case measured is not charged for compilation.
  scanText(
    Object.values(HOSTILE)
      .map((f) => f(2000))
      .join('\n'),
  )

  it.each(Object.entries(HOSTILE))('%s', (_name, make) => {
    const small = make(25_000).slice(0, 25_000)
    const large = make(100_000).slice(0, 100_000)
    expect(large.length).toBe(100_000)
    const [tSmall, tLarge] = cpuTimes([small, large]) as [number, number]
    // Linear: four times the text, about four times the time (quadratic would be sixteen). Tiny times are noise.
    expect(tLarge, `${tLarge.toFixed(1)} ms for 100k vs ${tSmall.toFixed(1)} ms for 25k`).toBeLessThan(Math.max(8 * tSmall, 25))
    // And fast in absolute terms, on a shared two-core machine.
    expect(tLarge).toBeLessThan(250)
  })
})
