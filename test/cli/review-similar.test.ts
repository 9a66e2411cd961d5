/**
 * @module `kb review` and similar pairs (docs/cli.md, "kb review") with the real binary and a child daemon: on a
 * pseudo-terminal an entry of a pair offers m)erge, s)upersede (Enter takes the other entry) and x) not the same, each
 * line within 80 columns; piped, the table's WHY says `similar`.
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {ChildDaemon} from '../helpers/daemon.js'
import {ANSI_RE, cleanup, kb, kbTty, type KbEnv, userWithDaemon} from './helpers.js'
import {shortId} from '../../src/shared/short-id.js'

// The child daemon inherits it: usage counts are written every 200 ms instead of every 5 s.
process.env.KB_USAGE_FLUSH_MS = '200'

type Text = {title: string; body: string}
const PAIRS = readFileSync(join(import.meta.dirname, '../../bench/collections/similar/pairs.jsonl'), 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l) as {label: string; a: Text; b: Text})
  .filter((p) => p.label === 'same')
  .slice(0, 3)

let d: ChildDaemon
let user: KbEnv
/** [first, second] of each pair; the second was found like the first when written. */
const pairs: Array<[string, string]> = []

beforeAll(async () => {
  ;({user, d} = await userWithDaemon({TERM: 'xterm'}))
  for (const p of PAIRS) {
    const a = (await d.request('POST', '/knowledge', {body: {...p.a, scope: 'global'}})).body
    const b = (await d.request('POST', '/knowledge', {body: {...p.b, scope: 'global'}})).body
    expect(b.similar.map((s: {id: string}) => s.id)).toContain(a.id)
    pairs.push([a.id, b.id])
  }
  // The seconds most used, in pair order: the walk meets them first.
  for (const [i, [, b]] of pairs.entries()) for (let n = 0; n < 6 - i; n++) await d.request('GET', `/knowledge/${b}`)
  await new Promise((r) => setTimeout(r, 600))
})

afterAll(async () => {
  delete process.env.KB_USAGE_FLUSH_MS
  await d?.stop()
  if (user) await cleanup(user)
})

const strip = (s: string): string => s.replace(new RegExp(ANSI_RE.source, 'g'), '')

describe('kb review with similar pairs', () => {
  it('piped, counts the pairs and says why', async () => {
    const r = await kb(user, ['review'])
    expect(r.code, r.stderr).toBe(0)
    const lines = r.stdout.trimEnd().split('\n')
    expect(lines[0]).toContain('similar 3')
    expect(lines.slice(1, 4).map((l) => l.split('\t')[0])).toEqual(pairs.map(([, b]) => b))
    expect(lines[1]!.split('\t')[2]).toBe('similar,unverified')
  })

  it('on a terminal: merges the first into its pair, supersedes the second by its pair (Enter), says the third is not the same', async () => {
    const r = await kbTty(user, ['review'], {input: 'm\ns\n\nx\nq\n', cols: 80})
    expect(r.code, r.stderr + r.stdout).toBe(0)
    const out = strip(r.stdout)
    // The questions (stderr) share the lines of what follows them, the answers typed ahead not being echoed.
    const printed = out.replace(
      /\[v\)erify[^\]]*\] |superseded by which entry \(its id, or the start or end of it\)\?( \[Enter: [^\]]*\])? /g,
      '\n',
    )
    for (const l of printed.split('\n')) expect([...l].length, l).toBeLessThanOrEqual(80)
    expect(out).toContain('m)erge s)upersede x)not same')
    expect(out).toContain(`similar: looks like ${pairs[0]![0]}`)
    expect(out).toContain(`merged into ${shortId(pairs[0]![0])}`)
    expect(out).toContain(`[Enter: ${shortId(pairs[1]![0])}]`)
    expect(out).toContain(`superseded by ${shortId(pairs[1]![0])}`)
    expect(out).toContain(`not the same as ${shortId(pairs[2]![0])}`)
    const get = async (id: string) => (await d.request('GET', `/knowledge/${id}`)).body
    expect((await get(pairs[0]![1])).superseded_by).toBe(pairs[0]![0])
    expect((await get(pairs[1]![1])).superseded_by).toBe(pairs[1]![0])
    expect((await get(pairs[2]![1])).superseded_by).toBeNull()
    const after = JSON.parse((await kb(user, ['review', '--json'])).stdout)
    expect(after.counts.similar).toBe(0)
  })
})
