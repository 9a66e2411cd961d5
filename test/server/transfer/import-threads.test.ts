/**
 * Past its first lines an import's lines are validated on a worker thread (server/services/transfer/off-thread-lines.ts):
 * the report is the one validation on the event loop gives — each refused line with its number and reason, in order,
 * and nothing applied. Runs on both drivers; a thread that fails is test/server/store/import-thread-failure.test.ts.
 */
import {randomUUID} from 'node:crypto'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {startInProcessDaemon, type TestDaemon} from '../../helpers/daemon.js'
import {fakeCorpus} from '../scan/fake-corpus.js'
import {exportText, importText, lines, storeUnscanned} from './support.js'

let d: TestDaemon
beforeAll(async () => {
  d = await startInProcessDaemon()
})
afterAll(async () => {
  await d?.stop()
})

const HEADER = JSON.stringify({kind: 'kb-export', version: 1})
const entry = (n: number, extra: object = {}): string =>
  JSON.stringify({kind: 'entry', id: randomUUID(), title: `Threaded entry ${n}`, body: `the body of entry ${n}`, scope: 'global', ...extra})

/** Lines 2 … count + 1 are entries; `bad` puts other text on the lines it names. */
function body(count: number, bad: Record<number, string> = {}): string {
  const lines = [HEADER]
  for (let line = 2; line <= count + 1; line++) lines.push(bad[line] ?? entry(line))
  return `${lines.join('\n')}\n`
}

/** The entries stored: the export's entry lines. */
async function total(): Promise<number> {
  return lines(await exportText(d)).filter((r) => r.kind === 'entry').length
}

/** The bad lines of one test, each placed early (validated on the event loop) or late (on the worker). */
const BAD = {
  title: entry(0, {title: 5}),
  json: '{"kind": "entry", "id": ',
  header: HEADER,
}

describe('lines validated on the worker thread', () => {
  it('refuse exactly as on the event loop: the same reasons, by line, in order, and nothing applied', {timeout: 120_000}, async () => {
    const twice = entry(0)
    // Refused by the scan for secrets (scope global): the finding's ids and excerpt are the same wherever it is.
    const leak = entry(0, {body: `The job logged:\n\n    ${fakeCorpus(2525).find((x) => x.kind === 'aws-access-token')!.text}\n`})
    const early = await importText(d, body(40, {3: BAD.title, 5: BAD.json, 7: BAD.header, 9: twice, 11: twice, 13: '', 15: leak}))
    const late = await importText(
      d,
      body(900, {603: BAD.title, 605: BAD.json, 607: BAD.header, 609: twice, 611: twice, 613: '', 615: leak}),
    )
    for (const r of [early, late]) {
      expect(r.status, r.text.slice(0, 300)).toBe(200)
      expect(r.body).toMatchObject({created: 0, updated: 0, skipped: 0})
    }
    const shifted = (early.body.rejected as Array<{line: number; reason: string}>).map((x) => ({...x, line: x.line + 600}))
    expect(late.body.rejected).toEqual(shifted)
    expect(late.body.rejected.map((x: {line: number}) => x.line)).toEqual([603, 605, 607, 611, 615])
    expect(late.body.rejected.at(-1).reason).toMatch(/^sensitive content for global scope/)
    expect(await total()).toBe(0)
  })

  it('invalid UTF-8 among them is refused in its place', {timeout: 60_000}, async () => {
    const text = Buffer.from(body(500, {402: 'PLACEHOLDER', 404: BAD.json}))
    const at = text.indexOf('PLACEHOLDER')
    const bytes = Buffer.concat([text.subarray(0, at), Buffer.from([0xc3, 0x28]), text.subarray(at + 'PLACEHOLDER'.length)])
    const r = await importText(d, bytes)
    expect(r.status).toBe(200)
    expect(r.body.rejected.map((x: {line: number; reason: string}) => [x.line, x.reason.slice(0, 14)])).toEqual([
      [402, 'line is not va'],
      [404, 'not valid JSON'],
    ])
    expect(await total()).toBe(0)
  })

  it(
    'a file imported again: the entries stored as it has them are skipped unscanned, past the first lines too',
    {timeout: 120_000},
    async () => {
      const first = await importText(d, body(300))
      expect(first.body).toMatchObject({created: 300, rejected: []})
      // The last entry holds a secret, as a kb from before safe publish could have stored it: scanned, it would be refused.
      const last = lines(await exportText(d))
        .filter((r) => r.kind === 'entry')
        .at(-1)
      const secret = fakeCorpus(2525).find((x) => x.kind === 'aws-access-token')!.text
      await storeUnscanned(d, last.id, `${last.body}\n\n${secret}`)
      const text = await exportText(d)
      expect(lines(text).findIndex((r) => r.id === last.id)).toBeGreaterThan(200)
      const again = await importText(d, text)
      expect(again.status, again.text.slice(0, 300)).toBe(200)
      expect(again.body).toMatchObject({created: 0, updated: 0, unchanged: 300, rejected: []})
    },
  )
})
