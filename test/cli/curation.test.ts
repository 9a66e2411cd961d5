/**
 * @module The curation commands (docs/cli.md, "Similar entries" and "Supersede and merge"): `kb add` with similar
 * entries off a terminal (added, listed on stderr) and on a pseudo-terminal (add anyway, comment on one, cancel,
 * --yes), `kb supersede` with `--include-superseded` and `kb show`'s line, and `kb merge`.
 */
import {afterAll, beforeAll, describe, expect, it, vi} from 'vitest'
import type {ChildDaemon} from '../helpers/daemon.js'
import {ANSI_RE, cleanup, kb, kbTty, type KbEnv, userWithDaemon, UUID_RE} from './helpers.js'
import {shortId} from '../../src/shared/short-id.js'

// Each test runs kb up to a dozen times: 30 s is too little on a loaded machine (seen in CI-like runs).
vi.setConfig({testTimeout: 120_000})

let d: ChildDaemon
let user: KbEnv

beforeAll(async () => {
  ;({user, d} = await userWithDaemon({TERM: 'xterm'}))
})
afterAll(async () => {
  await d?.stop()
  if (user) await cleanup(user)
})

const plain = (s: string): string => s.replace(new RegExp(ANSI_RE.source, 'g'), '')
const TITLE = 'Yak shaver crashes: error: yak buffer overflow (4097 > 4096)'
const BODY = 'The yak shaver aborts with `error: yak buffer overflow (4097 > 4096)`. Set YAK_BUFFER=8192 in yak.env and restart it.'
const COPY_TITLE = 'yak buffer overflow (4097 > 4096) crash in the yak shaver'
const COPY_BODY = 'Our yak shaver died: error: yak buffer overflow (4097 > 4096). Raising YAK_BUFFER to 8192 in yak.env fixed it.'
const count = async (): Promise<number> => (await d.request('GET', '/knowledge', {query: {limit: 100}})).body.items.length

describe('kb add with similar entries', () => {
  let first: string

  beforeAll(async () => {
    const r = await kb(user, ['add', TITLE, '--body', BODY])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).not.toContain('similar')
    first = r.stdout.trim()
    expect(first).toMatch(UUID_RE)
  })

  it('off a terminal adds it and lists them on stderr; --json carries them', async () => {
    const r = await kb(user, ['add', COPY_TITLE, '--body', COPY_BODY])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout.trim()).toMatch(UUID_RE)
    expect(r.stderr).toContain('kb: similar entries exist (comment on one instead of adding a copy):')
    expect(r.stderr).toContain(`1. ${shortId(first)}`)
    expect(r.stderr).toContain(TITLE)
    const j = await kb(user, ['add', COPY_TITLE, '--body', COPY_BODY, '--json'])
    expect(JSON.parse(j.stdout).similar.map((s: {id: string}) => s.id)).toContain(first)
    for (const id of [r.stdout.trim(), JSON.parse(j.stdout).id]) await d.request('DELETE', `/knowledge/${id}`)
  })

  it('on a terminal asks: "q" adds nothing', async () => {
    const before = await count()
    const r = await kbTty(user, ['add', COPY_TITLE, '--body', COPY_BODY], {input: 'q\n'})
    expect(r.code, r.stdout).toBe(0)
    const out = plain(r.stdout)
    expect(out).toContain('Entries you can see look like the same knowledge:')
    expect(out).toContain(shortId(first))
    expect(out).toContain('[a]dd anyway, [c]omment on one of them instead, or [q]uit?')
    expect(out).toContain('Cancelled: nothing added.')
    expect(await count()).toBe(before)
  })

  it('"c" comments on the similar entry instead of adding a copy', async () => {
    const before = await count()
    const r = await kbTty(user, ['add', COPY_TITLE, '--body', COPY_BODY], {input: 'c\n'})
    expect(r.code, r.stdout).toBe(0)
    expect(plain(r.stdout)).toContain(`Commented on ${shortId(first)}`)
    expect(await count()).toBe(before)
    const e = (await d.request('GET', `/knowledge/${first}`, {query: {detail: 'full'}})).body
    expect(e.comments.at(-1).body).toBe(`${COPY_TITLE}\n\n${COPY_BODY}`)
  })

  it('kb fork into a wider scope lists the similar entries there on stderr', async () => {
    const mine = await d.request('POST', '/knowledge', {body: {title: COPY_TITLE, body: COPY_BODY, scope: 'private'}})
    const r = await kb(user, ['fork', mine.body.id, '--scope', 'global'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toContain('kb: similar entries exist where it goes')
    expect(r.stderr).toContain(shortId(first))
    expect(r.stderr).not.toContain(shortId(mine.body.id))
    await d.request('DELETE', `/knowledge/${r.stdout.trim()}`)
    await d.request('DELETE', `/knowledge/${mine.body.id}`)
  })

  it('"a" adds it anyway; --yes adds without asking', async () => {
    const before = await count()
    const a = await kbTty(user, ['add', COPY_TITLE, '--body', COPY_BODY], {input: 'a\n'})
    expect(a.code, a.stdout).toBe(0)
    expect(plain(a.stdout)).toMatch(/Created [0-9a-f]{7} /)
    const y = await kbTty(user, ['add', COPY_TITLE, '--body', COPY_BODY, '--yes'])
    expect(y.code, y.stdout).toBe(0)
    expect(plain(y.stdout)).not.toContain('[a]dd anyway')
    expect(plain(y.stdout)).toMatch(/Created [0-9a-f]{7} /)
    expect(await count()).toBe(before + 2)
  })
})

describe('kb supersede and kb merge', () => {
  const add = async (title: string, body: string, ...more: string[]): Promise<string> => {
    const r = await kb(user, ['add', title, '--body', body, ...more])
    expect(r.code, r.stderr).toBe(0)
    return r.stdout.trim()
  }

  it('hides the old entry from list and search until --include-superseded; kb show names the replacement', async () => {
    const old = await add('Pelican deploy needs manual cache purge', 'Purge the pelican CDN cache by hand after deploys.')
    const neu = await add('Pelican deploy purges the cache itself', 'Since pelican 3 the deploy step purges the CDN cache.')
    const s = await kb(user, ['supersede', old, '--by', neu, '--note', 'pelican 3'])
    expect(s.code, s.stderr).toBe(0)
    expect(s.stdout.trim()).toBe(`${old}\t${neu}`)
    const listed = async (...flags: string[]): Promise<string[]> =>
      JSON.parse((await kb(user, ['list', '--json', ...flags])).stdout).items.map((i: {id: string}) => i.id)
    expect(await listed()).not.toContain(old)
    expect(await listed('--include-superseded')).toContain(old)
    const found = async (...flags: string[]): Promise<string[]> =>
      JSON.parse((await kb(user, ['search', 'pelican', '--json', ...flags])).stdout).items.map((i: {id: string}) => i.id)
    expect(await found()).toEqual([neu])
    expect((await found('--include-superseded')).sort()).toEqual([old, neu].sort())
    // The tables say which one is superseded (docs/cli.md, "Supersede and merge").
    expect((await kb(user, ['list', '--include-superseded'])).stdout).toContain('[superseded] Pelican deploy needs manual cache purge')
    expect((await kb(user, ['search', 'pelican', '--include-superseded'])).stdout).toContain('[superseded] Pelican deploy needs')
    const shown = await kb(user, ['show', old])
    expect(shown.stdout).toContain(`superseded by:\t${neu} Pelican deploy purges the cache itself`)
    const tty = await kbTty(user, ['show', old, '--no-pager'])
    expect(plain(tty.stdout)).toMatch(new RegExp(`superseded by\\s+${shortId(neu)} Pelican deploy purges the cache itself`))
    expect((await kb(user, ['supersede', old])).code).toBe(2)
    const undo = await kb(user, ['supersede', old, '--undo'])
    expect(undo.stdout.trim()).toBe(`${old}\t-`)
    expect(await listed()).toContain(old)
  })

  it('kb merge carries comments and tags over and supersedes the merged entry', async () => {
    const a = await add('Heron tests flaky on CI', 'Heron tests time out on CI; raise HERON_TIMEOUT.', '--tag', 'heron', '--tag', 'ci')
    const b = await add('Heron timeouts in CI', 'Set HERON_TIMEOUT=60 for CI runs.', '--tag', 'heron')
    expect((await kb(user, ['comment', a, 'Seen on the arm64 runners too.'])).code).toBe(0)
    const m = await kb(user, ['merge', a, '--into', b, '--note', 'same fix'])
    expect(m.code, m.stderr).toBe(0)
    expect(m.stdout.trim()).toBe(b)
    const e = (await d.request('GET', `/knowledge/${b}`, {query: {detail: 'full'}})).body
    expect(e.tags.sort()).toEqual(['ci', 'heron'])
    expect(e.comments.some((c: {body: string}) => c.body.includes('Seen on the arm64 runners too.'))).toBe(true)
    expect((await d.request('GET', `/knowledge/${a}`)).body.superseded_by).toBe(b)
    expect((await kb(user, ['merge', a])).code).toBe(2)
  })
})
