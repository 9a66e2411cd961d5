/**
 * Short ids through the real kb binary (docs/cli.md, "Short ids"): tables and messages on a terminal print them,
 * piped output keeps whole ids, every command that takes an entry takes a unique start or end of its id, an
 * ambiguous one is exit 2 listing the candidates, a hidden entry is never one, and the `Resolves-KB:` trailer
 * takes one too.
 */
import {spawnSync} from 'node:child_process'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {ChildDaemon} from '../helpers/daemon.js'
import {newPrincipal} from '../helpers/daemon.js'
import {craftEntries} from '../helpers/crafted-ids.js'
import {ANSI_RE, cleanup, freePort, gitRepo, kb, kbTty, type KbEnv, userWithDaemon, UUID_RE} from './helpers.js'
import {shortId} from '../../src/shared/short-id.js'

let d: ChildDaemon
let user: KbEnv

// Ids whose ends collide (the first two share their last 11 digits), and an owner's private entry whose end
// (dead5eed) another principal's only visible entry shares.
const A = '01930000-0000-7000-8000-0a4c5b6a7980'
const B = '01931111-1111-7111-8111-1a4c5b6a7980'
const HIDDEN = '01932222-3333-7333-8333-3333dead5eed'
const SEEN = '01933333-4444-7444-8444-4444dead5eed'

beforeAll(async () => {
  ;({user, d} = await userWithDaemon({TERM: 'xterm'}))
  await craftEntries(d, [
    {id: A, title: 'Alpha entry', scope: 'global'},
    {id: B, title: 'Bravo entry', scope: 'global'},
    {id: HIDDEN, title: 'Owner only', scope: 'private'},
    {id: SEEN, title: 'Everyone sees this', scope: 'global'},
  ])
})
afterAll(async () => {
  await d?.stop()
  if (user) await cleanup(user)
})

const plain = (s: string): string => s.replace(new RegExp(ANSI_RE.source, 'g'), '')
const add = async (title: string, ...more: string[]): Promise<string> => {
  const r = await kb(user, ['add', title, '--body', `The body of ${title}.`, '--scope', 'global', '--yes', ...more])
  expect(r.code, r.stderr).toBe(0)
  expect(r.stdout.trim()).toMatch(UUID_RE)
  return r.stdout.trim()
}
const entry = async (id: string): Promise<Record<string, any>> => {
  const get = async (): Promise<Record<string, any>> => (await d.request('GET', `/knowledge/${id}`, {query: {detail: 'full'}})).body
  // Once more when fetch's pooled connection was closed by the daemon's keep-alive timeout meanwhile (a slow commit on a
  // loaded machine idles it past 5 s): "other side closed" is the connection, not the answer.
  return get().catch(get)
}

describe('printing', () => {
  it('tables and messages on a terminal name entries by their short form; piped output keeps whole ids', async () => {
    const id = await add('Pelican cache purge')
    // The crafted ids A and B share 11 digits at their end (a4c5b6a7980), so this server's short forms have 12.
    const listed = plain((await kbTty(user, ['list', '--no-pager'])).stdout)
    expect(listed).toContain(shortId(id, 12))
    expect(listed).not.toContain(id)
    expect(listed).toContain(shortId(A, 12))
    const piped = (await kb(user, ['list'])).stdout
    expect(piped).toContain(id)
    const shown = plain((await kbTty(user, ['show', id, '--no-pager'])).stdout)
    expect(shown).toMatch(new RegExp(`^id +${shortId(id, 12)} {2}\\(${id}\\)$`, 'm'))
    const commented = await kbTty(user, ['comment', shortId(id, 12), 'Seen again.'])
    expect(plain(commented.stdout)).toContain(`Commented on ${shortId(id, 12)} (note)`)
  })
})

describe('every command that takes an entry takes its short form', () => {
  it('show, edit, comment, resolve, verify, flag --duplicate-of, history, publish, fork, supersede --by, merge --into, delete', async () => {
    const one = await add('Heron timeout on CI')
    const two = await add('Heron tests flaky on arm64')
    const end = (id: string): string => id.replace(/-/g, '').slice(-8)
    const start = (id: string): string => id.slice(0, 23)
    const ok = async (args: string[]): Promise<string> => {
      const r = await kb(user, args)
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0)
      return r.stdout
    }
    expect(await ok(['show', end(one)])).toContain(`id:\t${one}`)
    expect(await ok(['show', start(one).toUpperCase()])).toContain(`id:\t${one}`)
    await ok(['edit', end(one), '--title', 'Heron timeout on CI runners'])
    expect((await entry(one)).title).toBe('Heron timeout on CI runners')
    await ok(['comment', end(one), 'Raise HERON_TIMEOUT.'])
    await ok(['verify', end(one)])
    await ok(['flag', end(two), '--reason', 'duplicate', '--duplicate-of', end(one)])
    expect((await entry(two)).flags).toMatchObject({duplicate: 1})
    expect(await ok(['history', end(one)])).toContain('commented')
    const forked = (await ok(['fork', end(one)])).trim()
    expect((await entry(forked)).forked_from).toBe(one)
    await ok(['publish', end(forked), '--scope', 'global'])
    await ok(['resolve', end(forked), '--note', 'done'])
    expect((await entry(forked)).status).toBe('resolved')
    await ok(['supersede', end(forked), '--by', end(one)])
    expect((await entry(forked)).superseded_by).toBe(one)
    await ok(['merge', end(two), '--into', start(one)])
    expect((await entry(two)).superseded_by).toBe(one)
    await ok(['delete', end(forked), '--yes'])
    expect((await d.request('GET', `/knowledge/${forked}`)).status).toBe(404)
  }, 120_000)
})

describe('kb open', () => {
  it('takes a short id: the link signs in to the entry it names; an ambiguous one is exit 2', async () => {
    const r = await kb(user, ['open', '--print', shortId(SEEN, 12)])
    expect(r.code, r.stderr).toBe(0)
    expect(decodeURIComponent(r.stdout)).toContain(`/e/${SEEN}`)
    expect((await kb(user, ['open', '--print', '4c5b6a7980'])).code).toBe(2)
  })
})

describe('ambiguous, hidden, malformed', () => {
  it('an ambiguous short id is exit 2 listing the candidates (short form and title); --json carries them', async () => {
    const r = await kb(user, ['show', '4c5b6a7980'])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('kb: 4c5b6a7980 is the start or end of 2 entries')
    expect(r.stderr).toContain(`\n    ${shortId(A, 12)}  Alpha entry\n    ${shortId(B, 12)}  Bravo entry\n`)
    const j = await kb(user, ['resolve', '4c5b6a7980', '--json'])
    expect(j.code).toBe(2)
    const error = JSON.parse(j.stdout).error
    expect(error).toMatchObject({code: 'ambiguous_id', exit: 2, status: 409})
    expect(error.candidates.map((c: {id: string}) => c.id)).toEqual([A, B])
    // Nothing was resolved.
    expect((await entry(A)).status).toBe('open')
  })

  it("an entry you may not see is never a candidate: alice's dead5eed is the one she sees; hidden is not found (exit 3)", async () => {
    const aliceKey = await newPrincipal(d, 'alice')
    const alice = {env: {KB_API_KEY: aliceKey}}
    const seen = await kb(user, ['show', 'dead5eed'], alice)
    expect(seen.code, seen.stderr).toBe(0)
    expect(seen.stdout).toContain(`id:\t${SEEN}`)
    const hidden = await kb(user, ['show', '3333dead5eed'], alice)
    expect(hidden.code).toBe(3)
    expect(hidden.stderr).not.toContain('Owner only')
    // The owner sees both: ambiguous.
    expect((await kb(user, ['show', 'dead5eed'])).code).toBe(2)
  })

  it('too short or not hexadecimal: exit 2 with the reason, before any request', async () => {
    const port = await freePort()
    const nowhere = {env: {KB_BASE_URL: `http://127.0.0.1:${port}/api/v1`, KB_NO_AUTOSTART: '1'}}
    const short = await kb(user, ['show', 'abc'], nowhere)
    expect([short.code, short.stderr]).toEqual([
      2,
      'kb: "abc" is too short to name an entry: type at least 4 characters of its id (the short form shown is 7)\n',
    ])
    expect((await kb(user, ['delete', 'zzzz', '--yes'], nowhere)).code).toBe(2)
  })

  it('offline, a short id fails (exit 6) saying only the server reads it; a whole id is queued', async () => {
    const port = await freePort()
    const offline = {env: {KB_BASE_URL: `http://127.0.0.1:${port}/api/v1`, KB_NO_AUTOSTART: '1'}}
    const r = await kb(user, ['comment', 'abcdef1', 'later'], offline)
    expect(r.code).toBe(6)
    expect(r.stderr).toMatch(/^kb: abcdef1 is a short id, which only the server can read: /)
    const queued = await kb(user, ['comment', A, 'later'], offline)
    expect(queued.code, queued.stderr).toBe(0)
    expect(queued.stderr).toContain(`kb: queued comment "on ${shortId(A)}"`)
  })
})

describe('the Resolves-KB trailer', () => {
  it('takes a short id; an ambiguous one is a warning and the commit is made', async () => {
    const repo = gitRepo(user, 'trailer', {origin: 'git@github.com:acme/trailer.git'})
    expect((await kb(user, ['hook', 'install'], {cwd: repo})).code).toBe(0)
    const id = await add('Crash when the port is taken')
    const commit = (message: string): {code: number | null; stderr: string} => {
      const r = spawnSync('git', ['commit', '-q', '--allow-empty', '-m', message], {
        cwd: repo,
        env: user.env,
        encoding: 'utf8',
        timeout: 60_000,
      })
      return {code: r.status, stderr: r.stderr}
    }
    const c = commit(`Retry on EADDRINUSE\n\nResolves-KB: ${shortId(id, 12)}, 4c5b6a7980`)
    expect(c.code, c.stderr).toBe(0)
    expect(c.stderr).toContain(`kb: resolved ${shortId(id, 12)}`)
    expect(c.stderr).toMatch(/could not resolve 4c5b6a7980 from commit [0-9a-f]+: 4c5b6a7980 is the start or end of 2 entries/)
    expect((await entry(id)).status).toBe('resolved')
    expect([(await entry(A)).status, (await entry(B)).status]).toEqual(['open', 'open'])
  }, 60_000)
})
