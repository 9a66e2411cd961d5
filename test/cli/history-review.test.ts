/**
 * @module `kb history` and `kb review` (docs/cli.md, "Curation") with the real binary and a child daemon: the history
 * table within 80 columns and its --json, usage in `kb show`, the review queue as JSON and as a table most used
 * first, and the interactive walk on a pseudo-terminal (verify one, flag the next, quit).
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {ChildDaemon} from '../helpers/daemon.js'
import {ANSI_RE, cleanup, kb, kbTty, type KbEnv, userWithDaemon} from './helpers.js'

// The child daemon inherits it: usage counts are written every 200 ms instead of every 5 s.
process.env.KB_USAGE_FLUSH_MS = '200'

let d: ChildDaemon
let user: KbEnv
const ids: string[] = []

beforeAll(async () => {
  ;({user, d} = await userWithDaemon({TERM: 'xterm'}))
  for (const title of ['Pool exhaustion under load', 'Flaky CI on Mondays', 'Port 7411 already in use']) {
    ids.push(
      (await d.request('POST', '/knowledge', {body: {title, body: `${title}: what happened and the fix.`, scope: 'global'}})).body.id,
    )
  }
  // Used: the first three times, the second once, the third never.
  for (let i = 0; i < 3; i++) await d.request('GET', `/knowledge/${ids[0]}`)
  await d.request('GET', `/knowledge/${ids[1]}`)
  await new Promise((r) => setTimeout(r, 600))
})

afterAll(async () => {
  delete process.env.KB_USAGE_FLUSH_MS
  await d?.stop()
  if (user) await cleanup(user)
})

const strip = (s: string): string => s.replace(new RegExp(ANSI_RE.source, 'g'), '')

describe('kb review', () => {
  it('--json gives the counts and the entries most used first, each with why', async () => {
    const r = await kb(user, ['review', '--json'])
    expect(r.code, r.stderr).toBe(0)
    const page = JSON.parse(r.stdout)
    expect(page.counts).toMatchObject({unverified: 3, flagged: 0, similar: 0, superseded: 0})
    expect(page.items.map((i: any) => i.entry.id)).toEqual(ids)
    expect(page.items[0].entry.usage.retrieved).toBe(3)
    expect(page.items[2].reasons).toContainEqual({kind: 'unverified', detail: 'never verified'})
  })

  it('piped, prints the counts and a table', async () => {
    const r = await kb(user, ['review'])
    expect(r.code, r.stderr).toBe(0)
    const lines = r.stdout.trimEnd().split('\n')
    expect(lines[0]).toMatch(/^stale 0 · flagged 0 · similar 0 · unverified 3 · superseded 0 · never retrieved 0$/)
    expect(lines.slice(1).map((l) => l.split('\t').slice(0, 3))).toEqual([
      [ids[0], '3', 'unverified'],
      [ids[1], '1', 'unverified'],
      [ids[2], '0', 'unverified'],
    ])
  })

  it('walks the queue on a terminal: verify the first, flag the second incorrect, quit at the third', async () => {
    const r = await kbTty(user, ['review'], {input: 'v\nf\ni\nq\n', cols: 80})
    expect(r.code, r.stderr + r.stdout).toBe(0)
    const out = strip(r.stdout)
    expect(out).toContain('(1/3) Pool exhaustion under load')
    expect(out).toContain('unverified: never verified')
    expect(out).toContain('verified')
    expect(out).toContain('flagged incorrect')
    expect(out).toContain('(3/3) Port 7411 already in use')
    expect(out).toContain('Reviewed 2 of 3 (quit)')
    const first = (await d.request('GET', `/knowledge/${ids[0]}`)).body
    expect(first.freshness.verified_at).not.toBeNull()
    const second = (await d.request('GET', `/knowledge/${ids[1]}`)).body
    expect(second.flags.incorrect).toBe(1)
    const third = (await d.request('GET', `/knowledge/${ids[2]}`)).body
    expect(third.freshness.verified_at).toBeNull()
  })
})

describe('kb history', () => {
  it('lists every change with who and through what, within 80 columns on a terminal', async () => {
    await d.request('PATCH', `/knowledge/${ids[0]}`, {
      body: {body: 'A new first line.\nPool exhaustion under load: the fix.', tags: ['db']},
    })
    const r = await kbTty(user, ['history', ids[0]!, '--no-pager'], {cols: 80})
    expect(r.code, r.stderr).toBe(0)
    const lines = strip(r.stdout).trimEnd().split('\n')
    expect(lines[0]).toMatch(/^WHEN\s+ACTION\s+BY\s+VIA\s+CHANGES$/)
    expect(lines.slice(1).map((l) => l.split(/\s{2,}/)[1])).toEqual(['created', 'verified', 'edited'])
    for (const l of lines) expect([...l].length).toBeLessThanOrEqual(80)
    const json = await kb(user, ['history', ids[0]!, '--json'])
    const items = JSON.parse(json.stdout).items
    expect(items.map((h: any) => h.action)).toEqual(['created', 'verified', 'edited'])
    expect(items[2].changes).toEqual({body: '+2/−1 lines', tags: '+db'})
    expect(items[1].actor).toMatchObject({name: 'owner', via: 'api_key'})
  })

  it('a missing entry is exit 3 (not found)', async () => {
    const r = await kb(user, ['history', '00000000-0000-4000-8000-000000000000'])
    expect(r.code).toBe(3)
  })
})

describe('kb show', () => {
  it('says how often the entry was retrieved', async () => {
    const r = await kb(user, ['show', ids[2]!])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/^retrieved:\t\d+ times?/m)
  })
})
