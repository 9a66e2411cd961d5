/**
 * `kb verify`, `kb flag` and `kb project set verify-after` end to end with the built kb and a real daemon:
 * an anchor that changed makes the entry stale until `kb verify` in the checkout re-bases it (HEAD, the text
 * as it is now) and it is fresh again; a flag makes it stale, `--withdraw` or the flagger's own verify takes
 * it back, someone else's stays; the project's verify-after is set by its owner and refused to a member.
 */
import {createHash} from 'node:crypto'
import {mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {newPrincipal, type ChildDaemon} from '../helpers/daemon.js'
import {cleanup, git, gitRepo, kb, type KbEnv, userWithDaemon} from './helpers.js'

let d: ChildDaemon
let user: KbEnv
let repo: string
let projectId: string

const sha256 = (s: string): string => createHash('sha256').update(s, 'utf8').digest('hex')
const lines = (tag: string): string[] => Array.from({length: 12}, (_, i) => `${tag} ${i + 1}`)
function write(path: string, text: string[]): void {
  mkdirSync(join(repo, path, '..'), {recursive: true})
  writeFileSync(join(repo, path), text.join('\n') + '\n')
}
function commitAll(message: string): string {
  git(user, repo, 'add', '-A')
  git(user, repo, 'commit', '-q', '-m', message)
  return git(user, repo, 'rev-parse', 'HEAD')
}
const entry = async (id: string): Promise<any> => (await d.request('GET', `/knowledge/${id}`, {query: {detail: 'full'}})).body
async function ok(args: string[], env: Record<string, string> = {}): Promise<string> {
  const r = await kb(user, args, {cwd: repo, env})
  expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0)
  return r.stdout
}

beforeAll(async () => {
  ;({user, d} = await userWithDaemon())
  repo = gitRepo(user, 'svc', {origin: 'git@github.com:acme/svc.git'})
  projectId = (await ok(['project', 'join'])).split('\t')[0]!
  write('src/cache.ts', lines('cache'))
  commitAll('cache')
})

afterAll(async () => {
  await d?.stop()
  if (user) await cleanup(user)
})

describe('kb verify', {timeout: 120_000}, () => {
  it('re-bases the anchors on the checkout: a changed anchor is current and the entry fresh again', async () => {
    const id = (await ok(['add', 'Cache eviction', '--body', 'LRU.', '--anchor', 'src/cache.ts:3-4'])).trim()
    const changed = lines('cache')
    changed[2] = 'cache 3, now LFU'
    write('src/cache.ts', changed)
    const sha = commitAll('LFU')
    await ok(['check'])
    expect((await entry(id)).freshness.state).toBe('stale')

    const out = await ok(['verify', id, '--note', 'LFU is what the text says now'])
    expect(out).toBe(`${id}\tfresh\n`)
    const e = await entry(id)
    expect(e.freshness.state).toBe('fresh')
    expect(e.freshness.verified_at).not.toBeNull()
    expect(e.anchors[0]).toMatchObject({
      path: 'src/cache.ts',
      lines: '3-4',
      commit: sha,
      hash: sha256(changed.slice(2, 4).join('\n')),
      state: 'current',
    })
    expect(e.comments.map((c: any) => c.body)).toContain('Verified: LFU is what the text says now')
    // And the next check finds it current: nothing to report.
    const again = JSON.parse(await ok(['check', '--json']))
    expect(again.entries.find((x: any) => x.id === id).anchors[0]).toMatchObject({state: 'current', reported: false})
  })

  it('outside a checkout verifies without touching the anchors', async () => {
    const id = (await ok(['add', 'Cache size', '--body', 'x', '--anchor', 'src/cache.ts:1-2'])).trim()
    const before = (await entry(id)).anchors
    const r = await kb(user, ['verify', id], {cwd: user.home})
    expect(r.code, r.stderr).toBe(0)
    expect((await entry(id)).anchors).toEqual(before)
  })
})

describe('kb flag', {timeout: 120_000}, () => {
  it('makes an entry stale until withdrawn; duplicate-of needs reason duplicate', async () => {
    const id = (await ok(['add', 'Flag me', '--body', 'x'])).trim()
    expect(await ok(['flag', id, '--reason', 'stale', '--note', 'rewritten in 2.0'])).toBe(`${id}\tstale\n`)
    const flagged = await entry(id)
    expect(flagged.freshness.state).toBe('stale')
    expect(flagged.flags.stale).toBe(1)
    expect(flagged.freshness.reasons.map((r: any) => r.kind)).toEqual(['flagged'])
    const show = await ok(['show', id])
    expect(show).toMatch(/^stale:\t1 open flag: 1 stale/m)
    expect(show).toContain('flags:\t1 stale')
    expect(await ok(['flag', id, '--withdraw'])).toBe(`${id}\twithdrawn\n`)
    expect((await entry(id)).freshness.state).toBe('fresh')

    const dup = await kb(user, ['flag', id, '--reason', 'stale', '--duplicate-of', id], {cwd: repo})
    expect(dup.code).toBe(2)
    expect(dup.stderr).toContain('--duplicate-of goes with --reason duplicate')
    const none = await kb(user, ['flag', id], {cwd: repo})
    expect(none.code).toBe(2)
    expect(none.stderr).toContain('--reason stale|incorrect|duplicate|obsolete')
  })

  it("a verify withdraws the verifier's own flag; someone else's stays", async () => {
    const id = (await ok(['add', 'Shared', '--body', 'x'])).trim()
    const bob = {KB_API_KEY: await newPrincipal(d, 'bob', projectId)}
    await ok(['flag', id, '--reason', 'incorrect'], bob)
    await ok(['flag', id, '--reason', 'obsolete'])
    await ok(['verify', id])
    const e = await entry(id)
    expect(e.flags).toMatchObject({incorrect: 1, obsolete: 0})
    expect(e.freshness.state).toBe('stale')
  })
})

describe('kb project set verify-after', {timeout: 120_000}, () => {
  it('is set by the owner, shown by kb project show, and refused to a plain member (exit 4)', async () => {
    expect(await ok(['project', 'set', 'verify-after', '90'])).toBe(`${projectId}\tverify-after\t90\n`)
    expect(JSON.parse(await ok(['project', 'show', '--json'])).verify_after_days).toBe(90)
    const bad = await kb(user, ['project', 'set', 'verify-after', 'soon'], {cwd: repo})
    expect(bad.code).toBe(2)
    const carol = {KB_API_KEY: await newPrincipal(d, 'carol', projectId)}
    const refused = await kb(user, ['project', 'set', 'verify-after', '30', '--project', projectId], {cwd: repo, env: carol})
    expect(refused.code, refused.stderr).toBe(4)
  })
})
