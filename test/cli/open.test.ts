/**
 * `kb open [id]` and `kb show <id> --web` with the real binary and daemon (docs/web.md, "Sessions"): the browser is
 * opened at a one-time link — one argument of the opener, no shell, the API key nowhere in it — which signs in once;
 * without a display the link is printed instead; a missing entry opens nothing.
 */
import {chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {ChildDaemon} from '../helpers/daemon.js'
import {cleanup, kb, type KbEnv, userWithDaemon} from './helpers.js'

let d: ChildDaemon
let user: KbEnv
let id: string
let root: string

/** An `xdg-open` that records its arguments, one per line, and opens nothing. */
function fakeOpener(): {env: Record<string, string>; calls: () => string[][]} {
  const dir = join(user.root, `bin-${Math.random().toString(36).slice(2)}`)
  const log = join(dir, 'calls')
  mkdirSync(dir)
  writeFileSync(
    join(dir, 'xdg-open'),
    `#!/bin/sh\nfor a in "$@"; do printf '%s\\n' "$a"; done >> '${log}'\nprintf '%s\\n' '--' >> '${log}'\n`,
  )
  chmodSync(join(dir, 'xdg-open'), 0o755)
  return {
    env: {PATH: `${dir}:${process.env.PATH}`, DISPLAY: ':99'},
    calls: () => {
      if (!existsSync(log)) return []
      return readFileSync(log, 'utf8')
        .split('--\n')
        .filter((c) => c !== '')
        .map((c) => c.trimEnd().split('\n'))
    },
  }
}

async function waitFor<T>(get: () => T[], n: number): Promise<T[]> {
  for (let i = 0; i < 100 && get().length < n; i++) await new Promise((r) => setTimeout(r, 50))
  return get()
}

beforeAll(async () => {
  ;({user, d} = await userWithDaemon({DISPLAY: '', WAYLAND_DISPLAY: ''}))
  user.env.KB_API_KEY = d.ownerKey
  root = d.url.replace(/\/api\/v1$/, '')
  id = (await d.request('POST', '/knowledge', {body: {title: 'Open me', body: 'In a browser.', scope: 'private'}})).body.id
})
afterAll(async () => {
  await d?.stop()
  if (user) await cleanup(user)
})

describe('kb open', () => {
  it('prints a one-time link where no browser can appear; it signs in once and leads to the entry', async () => {
    const res = await kb(user, ['open', id, '--json'])
    expect(res.code, res.stderr).toBe(0)
    const out = JSON.parse(res.stdout)
    expect(out).toMatchObject({opened: false, page: `${root}/e/${id}`})
    expect(out.link).toMatch(new RegExp(`^${root}/signin/link\\?code=kbwl_[0-9A-Za-z]{43}&next=%2Fe%2F${id}$`))
    expect(out.link).not.toContain(d.ownerKey)
    const piped = await kb(user, ['open', id])
    expect(piped.stdout).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/signin\/link\?code=kbwl_\S+\n$/)

    const first = await fetch(out.link, {redirect: 'manual'})
    expect(first.status).toBe(303)
    expect(first.headers.get('location')).toBe(`/e/${id}`)
    const cookie = first.headers.getSetCookie()[0]!.split(';')[0]!
    const page = await fetch(`${root}/e/${id}`, {headers: {cookie}})
    expect(await page.text()).toContain('<h1>Open me</h1>')
    expect((await fetch(out.link, {redirect: 'manual'})).status).toBe(400)

    // The session is listed with the grants, and `kb auth revoke-grant` signs that browser out.
    const grants = await kb(user, ['auth', 'grants', '--json'])
    expect(grants.code, grants.stderr).toBe(0)
    const session = JSON.parse(grants.stdout).items.find((g: any) => g.client_id === 'kb-web')
    expect(session.client_name).toMatch(/^kb web view/)
    const revoked = await kb(user, ['auth', 'revoke-grant', session.id])
    expect(revoked.code, revoked.stderr).toBe(0)
    expect((await fetch(`${root}/e/${id}`, {headers: {cookie}, redirect: 'manual'})).status).toBe(303)
  })

  it('opens the browser at the link: one argument, no shell, the key nowhere', async () => {
    const opener = fakeOpener()
    const res = await kb(user, ['open', id], {env: opener.env})
    expect(res.code, res.stderr).toBe(0)
    expect(res.stdout).toBe(`${root}/e/${id}\n`)
    const [call] = await waitFor(opener.calls, 1)
    expect(call).toHaveLength(1)
    expect(call![0]).toMatch(/\/signin\/link\?code=kbwl_[0-9A-Za-z]{43}&next=/)
    expect(call![0]).not.toContain(d.ownerKey)
    expect(res.stdout).not.toContain('kbwl_')
    expect((await fetch(call![0]!, {redirect: 'manual'})).status).toBe(303)

    const search = await kb(user, ['open'], {env: opener.env})
    expect(search.stdout).toBe(`${root}/search\n`)
    const web = await kb(user, ['show', id, '--web'], {env: opener.env})
    expect(web.code, web.stderr).toBe(0)
    expect(web.stdout).toBe(`${root}/e/${id}\n`)
    expect(await waitFor(opener.calls, 3)).toHaveLength(3)
  })

  it('opens nothing for an entry that is missing (exit 3)', async () => {
    const opener = fakeOpener()
    const res = await kb(user, ['open', '00000000-0000-4000-8000-000000000000'], {env: opener.env})
    expect(res.code).toBe(3)
    await new Promise((r) => setTimeout(r, 300))
    expect(opener.calls()).toEqual([])
  })
})
