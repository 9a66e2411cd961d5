/**
 * @module POST /recalls and GET /recalls against a real daemon: a relevant prompt gets the matching entry within the
 * budget with why; an unrelated one gets nothing; secrets in entries and prompts are masked; the record lists what
 * was given, only to its principal, in pages, with what was verified or flagged since; records past the retention go;
 * what a recall gives counts as a retrieval; validation (docs/api.md, "Recall", "Usage").
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {newPrincipal, queryStore, startInProcessDaemon, tempDir, type TestDaemon} from '../../helpers/daemon.js'
import {createEntry, expectProblem, joinProject, UUID_RE} from './support.js'

let d: TestDaemon
let projectId: string
let pool: Record<string, any>
let port: Record<string, any>
const AWS_KEY = 'AKIAQ5XTYWBN7TGHMK2P'

beforeAll(async () => {
  d = await startInProcessDaemon()
  projectId = (await joinProject(d, 'https://github.com/acme/recall.git')).id
  pool = await createEntry(d, {
    title: 'Connection pool exhausted under load',
    body: 'The pg pool timed out acquiring a client: raise max in src/db/pool.ts to 50 and release clients in finally.',
    tags: ['postgres'],
    scope: 'global',
  })
  port = await createEntry(d, {title: 'Port 7411 already in use', body: 'An old daemon still holds the port: run kb daemon stop.'})
  await createEntry(d, {title: 'Deploy credentials', body: `The deploy job reads the deploy key ${AWS_KEY} from the vault.`})
  for (let i = 0; i < 5; i++) await createEntry(d, {title: `Unrelated note ${i}`, body: `Lunch menu for day ${i}: soup, bread and salad.`})
})
afterAll(async () => {
  await d.stop()
})

describe('POST /recalls', () => {
  it('gives the matching entry with its id, freshness and the words it matched, within the budget', async () => {
    const res = await d.request('POST', '/recalls', {
      body: {prompt: 'The pg pool keeps timing out acquiring a client, why?', client: 'claude-code', session: 's-1'},
    })
    expect(res.status, res.text).toBe(201)
    expect(res.body.id).toMatch(UUID_RE)
    expect(res.body.items.map((i: any) => i.id)).toContain(pool.id)
    expect(res.body.items.map((i: any) => i.id)).not.toContain(port.id)
    const item = res.body.items.find((i: any) => i.id === pool.id)
    expect(item.freshness).toBe('fresh')
    expect(item.why.length).toBeGreaterThanOrEqual(2)
    expect(res.body.context).toContain(`[${pool.id}] Connection pool exhausted under load (fresh; matched: `)
    expect(res.body.tokens_used).toBeGreaterThan(0)
    expect(res.body.tokens_used).toBeLessThanOrEqual(300)
  })

  it('finds an entry by the error text pasted in a prompt: its code-shaped tokens match as code search reads them', async () => {
    const refused = await createEntry(d, {
      title: 'Database not up yet at startup',
      body: 'connect ECONNREFUSED 127.0.0.1:5432: the database container starts after the app; run docker compose up -d db first.',
      scope: 'global',
    })
    const prompt = [
      'npm start fails with this:',
      'Error: connect ECONNREFUSED 127.0.0.1:5432',
      '    at TCPConnectWrap.afterConnect [as oncomplete] (node:net:1555:16)',
      'any idea?',
    ].join('\n')
    const res = await d.request('POST', '/recalls', {body: {prompt}})
    expect(res.status, res.text).toBe(201)
    expect(res.body.items.map((i: any) => i.id)).toEqual([refused.id])
    expect(res.body.items[0].why).toEqual(expect.arrayContaining(['econnrefused', '127.0.0.1:5432']))
  })

  it('gives nothing for a prompt that shares no meaningful word with any entry', async () => {
    const res = await d.request('POST', '/recalls', {body: {prompt: 'What is the weather like today?'}})
    expect(res.status).toBe(201)
    expect(res.body).toMatchObject({context: '', items: [], tokens_used: 0})
  })

  it('keeps the context within a small budget, dropping what does not fit', async () => {
    const res = await d.request('POST', '/recalls', {body: {prompt: 'pool port daemon client timed out', max_tokens: 50}})
    expect(res.status).toBe(201)
    expect(res.body.tokens_used).toBeLessThanOrEqual(50)
  })

  it('masks a secret found in an entry and in the prompt, in the context and in the record', async () => {
    const res = await d.request('POST', '/recalls', {body: {prompt: `which deploy key does the deploy job read? is it ${AWS_KEY}`}})
    expect(res.status).toBe(201)
    expect(res.body.context).toContain('deploy')
    expect(res.body.context).not.toContain(AWS_KEY)
    expect(res.body.context).toContain('[REDACTED:')
    const log = await d.request('GET', '/recalls', {query: {limit: 1}})
    expect(log.body.items[0].query).not.toContain(AWS_KEY)
  })

  it('searches within a project the caller belongs to, and refuses one it does not (404)', async () => {
    const ok = await d.request('POST', '/recalls', {body: {prompt: 'pool timed out', project_id: projectId}})
    expect(ok.status).toBe(201)
    const carol = await newPrincipal(d, 'carol-recall')
    expectProblem(await d.request('POST', '/recalls', {key: carol, body: {prompt: 'pool timed out', project_id: projectId}}), 404)
  })

  it('validates its body', async () => {
    expectProblem(await d.request('POST', '/recalls', {body: {}}), 422, ['prompt'])
    expectProblem(await d.request('POST', '/recalls', {body: {prompt: 'x', max_tokens: 10}}), 422, ['max_tokens'])
    expectProblem(await d.request('POST', '/recalls', {body: {prompt: 'x', extra: 1}}), 422)
    expectProblem(await d.request('POST', '/recalls', {body: {prompt: 'x'}, key: null}), 401)
  })

  it('answers a 100,000-character prompt', async () => {
    const res = await d.request('POST', '/recalls', {body: {prompt: `${'pool '.repeat(19_000)}${'x'.repeat(4_999)}`}})
    expect(res.status).toBe(201)
  })
})

describe('GET /recalls', () => {
  it("lists the caller's own recalls, newest first, with what was given, by session and in pages", async () => {
    const dave = await newPrincipal(d, 'dave-recall')
    for (let i = 0; i < 3; i++)
      expect(
        (await d.request('POST', '/recalls', {key: dave, body: {prompt: `pool timed out acquiring client ${i}`, session: 'dave-s'}}))
          .status,
      ).toBe(201)
    await d.request('POST', '/recalls', {key: dave, body: {prompt: 'pool timed out again', session: 'other'}})
    const all = await d.request('GET', '/recalls', {key: dave})
    expect(all.status).toBe(200)
    expect(all.body.items).toHaveLength(4)
    expect(all.body.items[0].query).toContain('again')
    expect(all.body.items[0]).toMatchObject({source: 'hook', session: 'other'})
    expect(all.body.items[1].items[0]).toMatchObject({id: pool.id, detail: 'summary', verified_since: false, flagged_since: false})
    const session = await d.request('GET', '/recalls', {key: dave, query: {session: 'dave-s', limit: 2}})
    expect(session.body.items).toHaveLength(2)
    expect(session.body.next_cursor).toBeTruthy()
    const rest = await d.request('GET', '/recalls', {key: dave, query: {session: 'dave-s', limit: 2, cursor: session.body.next_cursor}})
    expect(rest.body.items).toHaveLength(1)
    expect(rest.body.next_cursor).toBeNull()
    // Nobody else's: the owner's own list does not hold dave's.
    const mine = await d.request('GET', '/recalls', {query: {limit: 100}})
    expect(mine.body.items.every((r: any) => r.session !== 'dave-s')).toBe(true)
  })
})

describe('what became of a recall', () => {
  it('shows which given entries were verified or flagged after the recall, and only after it', async () => {
    const erin = await newPrincipal(d, 'erin-recall')
    const works = await createEntry(d, {
      title: 'Flux capacitor overheats on boot',
      body: 'Lower the flux capacitor clock.',
      scope: 'global',
    })
    const fails = await createEntry(d, {title: 'Flux capacitor overheats in CI', body: 'Pin the flux capacitor driver.', scope: 'global'})
    const ask = async (): Promise<void> => {
      const r = await d.request('POST', '/recalls', {key: erin, body: {prompt: 'the flux capacitor overheats', session: 'erin-s'}})
      expect(r.status, r.text).toBe(201)
      expect(r.body.items.map((i: any) => i.id).sort()).toEqual([works.id, fails.id].sort())
    }
    await ask()
    // The agent applied one fix and it worked; the other did not.
    expect((await d.request('POST', `/knowledge/${works.id}/verify`, {key: erin, body: {}})).status).toBe(200)
    expect((await d.request('POST', `/knowledge/${fails.id}/flags`, {key: erin, body: {reason: 'incorrect'}})).status).toBeLessThan(300)
    const outcome = async (): Promise<Array<Record<string, [boolean, boolean]>>> =>
      (await d.request('GET', '/recalls', {key: erin})).body.items.map((r: any) =>
        Object.fromEntries(r.items.map((i: any) => [i.id === works.id ? 'works' : 'fails', [i.verified_since, i.flagged_since]])),
      )
    expect(await outcome()).toEqual([{works: [true, false], fails: [false, true]}])
    // A recall after the verification: nothing happened since. The flagged entry is stale now, so it is not given.
    const later = await d.request('POST', '/recalls', {key: erin, body: {prompt: 'the flux capacitor overheats', session: 'erin-s'}})
    expect(later.body.items.map((i: any) => i.id)).toEqual([works.id])
    expect(await outcome()).toEqual([{works: [false, false]}, {works: [true, false], fails: [false, true]}])
  })

  it('keeps records 30 days: a recall deletes those older than that, not younger ones', async () => {
    const frank = await newPrincipal(d, 'frank-recall')
    const recall = async (prompt: string): Promise<string> =>
      (await d.request('POST', '/recalls', {key: frank, body: {prompt}})).body.id as string
    const old = await recall('pool timed out, the oldest question')
    const young = await recall('pool timed out, a younger question')
    const daysAgo = (n: number): string => new Date(Date.now() - n * 86_400_000).toISOString()
    await queryStore(d, 'UPDATE recalls SET at = ? WHERE id = ?', [daysAgo(31), old])
    await queryStore(d, 'UPDATE recalls SET at = ? WHERE id = ?', [daysAgo(29), young])
    const listed = async (): Promise<string[]> => (await d.request('GET', '/recalls', {key: frank})).body.items.map((r: any) => r.id)
    expect(await listed()).toEqual([young, old]) // nothing deletes on a read
    const now = await recall('pool timed out, today')
    expect(await listed()).toEqual([now, young])
  })
})

describe('usage', () => {
  it('counts each entry a recall gives as a retrieval, as a read at standard is', async () => {
    const dataDir = tempDir()
    let own = await startInProcessDaemon({dataDir})
    const storeUrl = own.storeUrl
    try {
      const given = await createEntry(own, {
        title: 'Flaky websocket reconnect storm',
        body: 'Back off with jitter on reconnect.',
        scope: 'global',
      })
      const other = await createEntry(own, {title: 'Cron job timezone drift', body: 'Schedule in UTC.', scope: 'global'})
      for (let i = 0; i < 2; i++) {
        const r = await own.request('POST', '/recalls', {body: {prompt: 'websocket reconnect storm after deploy'}})
        expect(r.body.items.map((x: any) => x.id)).toEqual([given.id])
      }
      await own.stop() // writes the counts held in memory
      own = await startInProcessDaemon({dataDir, ...(storeUrl ? {storeUrl} : {})})
      const usage = async (id: string): Promise<unknown> =>
        (await own.request('GET', `/knowledge/${id}`, {query: {detail: 'full'}})).body.usage.retrieved
      expect(await usage(given.id)).toBe(2)
      expect(await usage(other.id)).toBe(0)
    } finally {
      await own.stop()
    }
  })
})
