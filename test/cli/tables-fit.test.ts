/**
 * Every human table of the built `kb` fits an 80-column pseudo-terminal (util-linux `script`), long titles, names and
 * errors cut with "…" rather than wrapped (docs/cli.md, "Tables"); piped, the same rows are whole.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {newPrincipal, type ChildDaemon} from '../helpers/daemon.js'
import {fakeCorpus} from '../server/scan/fake-corpus.js'
import {displayWidth} from '../../src/cli/output/format.js'
import {ANSI_RE, cleanup, freePort, gitRepo, kb, kbTty, type KbEnv, userWithDaemon} from './helpers.js'
import {shortId} from '../../src/shared/short-id.js'

let d: ChildDaemon
let user: KbEnv
let repo: string
const ids: string[] = []
const LONG = 'Postgres pool times out acquiring a client under heavy load in the nightly worker when retries pile up'
const WIDE = '接続プールが枯渇するとワーカーがタイムアウトする問題の調査と対処の記録です'
const corpus = fakeCorpus(2026)
const line = (kind: string): string => corpus.find((s) => s.kind === kind)!.text

/** The lines of a terminal run, colours removed, blank ones left out. */
const lines = (out: string): string[] =>
  out
    .replace(new RegExp(ANSI_RE.source, 'g'), '')
    .split('\n')
    .filter((l) => l.trim() !== '')

async function fits(args: string[], header: RegExp | null, env: Record<string, string> = {}): Promise<string[]> {
  const r = await kbTty(user, args, {cols: 80, cwd: repo, env})
  expect(r.code, r.stderr + r.stdout).toBe(0)
  const out = lines(r.stdout)
  if (header)
    expect(
      out.some((l) => header.test(l)),
      out.join('\n'),
    ).toBe(true)
  for (const l of out) expect(displayWidth(l), `kb ${args.join(' ')}: ${l}`).toBeLessThanOrEqual(80)
  return out
}

beforeAll(async () => {
  ;({user, d} = await userWithDaemon({TERM: 'xterm'}))
  repo = gitRepo(user, 'tables', {origin: 'git@github.com:acme-platform-engineering/a-rather-long-repository-name.git'})
  expect((await kb(user, ['project', 'join'], {cwd: repo})).code).toBe(0)
  for (const [title, scope] of [
    [LONG, 'project'],
    [WIDE, 'global'],
    [`${LONG} (private copy)`, 'private'],
  ] as const) {
    const r = await kb(user, ['add', title, '-b', 'Raise the pool size; pool timeouts follow.', '--scope', scope, '-y'], {cwd: repo})
    expect(r.code, r.stderr).toBe(0)
    ids.push(r.stdout.trim())
  }
  expect((await kb(user, ['resolve', ids[0]!, '--note', 'fixed by raising the pool size'], {cwd: repo})).code).toBe(0)
  expect((await kb(user, ['recall', `why does the pool time out ${'under heavy load '.repeat(6)}`], {cwd: repo})).code).toBe(0)
  const key = await newPrincipal(d, 'a-principal-with-a-very-long-name-from-the-platform-team')
  expect((await kb(user, ['project', 'join'], {cwd: repo, env: {KB_API_KEY: key}})).code).toBe(0)
})
afterAll(async () => {
  await d?.stop()
  if (user) await cleanup(user)
})

describe('tables on an 80-column terminal', () => {
  it('kb list (-L 2, every detail), kb search and kb history cut the title, not the row', async () => {
    const list = await fits(['list', '-L', '2'], /^ID +STATUS +SCOPE +TITLE/)
    expect(list.some((l) => l.includes(shortId(ids[2]!)) && l.includes('…'))).toBe(true)
    await fits(['list', '--detail', 'full'], /^ID +STATUS/)
    await fits(['list', '--status', 'resolved'], /^ID +STATUS/)
    const search = await fits(['search', 'pool timeouts'], /^ID +/)
    expect(search.some((l) => l.startsWith(shortId(ids[0]!)))).toBe(true)
    await fits(['history', ids[0]!], /^WHEN +ACTION +BY/)
    await fits(['review', '--list'], /^ID +/)
    // Piped, the same rows are whole: the title is not cut.
    const piped = await kb(user, ['list'], {cwd: repo})
    expect(piped.stdout).toContain(`${ids[0]}\tresolved\tproject\t${LONG}\t`)
  })

  it('project, member, request, key and grant lists; config and agent tables', async () => {
    await fits(['project', 'list'], /^ID +NAME +REMOTE/)
    await fits(['project', 'members'], /^NAME +ROLE/)
    await fits(['project', 'requests'], /^REQUEST +NAME/)
    const created = await kb(user, ['api-key', 'create', '--name', `ci runner of ${LONG.slice(0, 80)}`], {cwd: repo})
    expect(created.code, created.stderr).toBe(0)
    await fits(['api-key', 'list'], /^ID +NAME/)
    await fits(['config', 'list'], /^KEY +VALUE/, {KB_RECALL_MAX_TOKENS: '500'})
    await fits(['agent', 'log'], /^WHEN +BY +GIVEN +QUERY/)
  })

  it('kb sync --status: writes queued for two servers, with their errors', async () => {
    const gone = [await freePort(), await freePort()].map((p) => `http://127.0.0.1:${p}/api/v1`)
    for (const base of gone) {
      const r = await kb(user, ['add', `${LONG} (queued)`, '-b', 'offline', '--scope', 'global', '-y'], {
        cwd: repo,
        env: {KB_BASE_URL: base, KB_NO_AUTOSTART: '1'},
      })
      expect(r.stderr).toContain('queued')
    }
    const out = await fits(['sync', '--status'], /^KEY +QUEUED +COMMAND +WHAT +SERVER/, {KB_NO_AUTOSTART: '1'})
    expect(out).toHaveLength(3)
    const piped = await kb(user, ['sync', '--status'], {cwd: repo})
    expect(piped.stdout).toContain(`${LONG} (queued)`)
  })

  it('the publish findings table and the redaction diff', async () => {
    const body = `The deploy job printed ${line('aws-access-token')} while the nightly worker retried ${'again and '.repeat(8)}\nand then ${line('email')} ${'reported it twice '.repeat(5)}.`
    const r = await d.request('POST', '/knowledge', {body: {title: 'Deploy leak', body, scope: 'private'}})
    expect(r.status).toBe(201)
    const out = await fits(['publish', r.body.id, '--preview', '--scope', 'global'], /findings of secrets/)
    expect(out.some((l) => /^ {2}[0-9a-f]{16} {2}AWS access key {2}body, line 1 {2}/.test(l))).toBe(true)
    const piped = await kb(user, ['publish', r.body.id, '--preview', '--scope', 'global'])
    expect(piped.stdout.split('\n').some((l) => displayWidth(l) > 80)).toBe(true)
  })
})
