/**
 * @module `kb search --max-tokens`: the budget reaches the API, the JSON carries `tokens_used` and
 * `truncated`, and human output reports them (on stderr when piped, so rows stay rows).
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {ChildDaemon} from '../helpers/daemon.js'
import {cleanup, kb, type KbEnv, userWithDaemon} from './helpers.js'

let d: ChildDaemon
let user: KbEnv

beforeAll(async () => {
  ;({user, d} = await userWithDaemon())
  for (const title of ['Rollback of a deploy, the long story', 'Deploy rollback checklist']) {
    const res = await d.request('POST', '/knowledge', {body: {title, body: 'rollback '.repeat(2000), scope: 'global'}})
    expect(res.status).toBe(201)
  }
})

afterAll(async () => {
  await d?.stop()
  if (user) await cleanup(user)
})

describe('kb search --max-tokens', () => {
  it('packs the hits into the budget and says so in --json', async () => {
    const r = await kb(user, ['search', 'deploy', 'rollback', '--detail', 'full', '--max-tokens', '300', '--json'])
    expect(r.code, r.stderr).toBe(0)
    const out = JSON.parse(r.stdout) as {items: unknown[]; tokens_used: number; truncated: boolean; total: number}
    expect(out.total).toBe(2)
    expect(out.tokens_used).toBeGreaterThan(0)
    expect(out.tokens_used).toBeLessThanOrEqual(300)
    expect(out.truncated).toBe(true)
    const roomy = JSON.parse((await kb(user, ['search', 'deploy', 'rollback', '--max-tokens', '100000', '--json'])).stdout) as {
      items: unknown[]
      truncated: boolean
    }
    expect(roomy.items).toHaveLength(2)
    expect(roomy.truncated).toBe(false)
  })

  it('reports tokens used and truncation beside piped rows, and none without the flag', async () => {
    const r = await kb(user, ['search', 'deploy', 'rollback', '--detail', 'full', '--max-tokens', '300'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toMatch(/kb: \d+ of 300 tokens used; truncated/)
    expect(r.stdout).not.toMatch(/tokens used/)
    const plain = await kb(user, ['search', 'deploy', 'rollback'])
    expect(plain.stderr).not.toMatch(/tokens used/)
    expect(plain.stdout.trim().split('\n')).toHaveLength(2)
  })

  it('refuses a budget below 1 as a usage error', async () => {
    const r = await kb(user, ['search', 'deploy', '--max-tokens', '0'])
    expect(r.code).toBe(2)
  })
})
