/**
 * Round trips (docs/api.md, "Export, import and backup"): an export imported back into the server it came from,
 * twice, and into another server, twice. Entries already here as the file has them are skipped before they are
 * scanned, so an acknowledged finding is no refusal; acknowledgements the export carries count only for the
 * audience they were made for (this server, this scope and project); a second import changes nothing and writes
 * no history.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {startInProcessDaemon, type TestDaemon} from '../../helpers/daemon.js'
import {fakeCorpus} from '../scan/fake-corpus.js'
import {exportText, importText, lines, populate, storeUnscanned, toNdjson, type Populated} from './support.js'

const corpus = fakeCorpus(2525)
const line = (kind: string): string => corpus.find((s) => s.kind === kind)!.text

let src: TestDaemon
let dst: TestDaemon
let pop: Populated
let leaky: string

beforeAll(async () => {
  src = await startInProcessDaemon()
  dst = await startInProcessDaemon()
  pop = await populate(src)
  // An entry whose finding its author acknowledged when publishing it (a signed record on the entry).
  const body = {
    title: 'Deploy key in the CI log',
    body: `The job logged:\n\n    ${line('aws-access-token')}\n\nRotated since.`,
    scope: 'global',
  }
  const refused = await src.request('POST', '/knowledge', {body})
  expect(refused.status).toBe(422)
  const ids = refused.body.findings.map((f: {id: string}) => f.id)
  const made = await src.request('POST', '/knowledge', {body: {...body, acknowledge: ids}})
  expect(made.status, made.text).toBe(201)
  leaky = made.body.id
})
afterAll(async () => {
  await src?.stop()
  await dst?.stop()
})

/** Every entry's history, by entry id: what an import must not add to when it changes nothing. */
async function histories(d: TestDaemon, ids: string[]): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {}
  for (const id of ids) out[id] = (await d.request('GET', `/knowledge/${id}/history`)).body.items
  return out
}

describe('an export imported back where it came from', () => {
  it('skips every entry, the acknowledged one too, and a second import changes nothing either', async () => {
    const text = await exportText(src)
    const ids = lines(text)
      .filter((r) => r.kind === 'entry')
      .map((r) => r.id as string)
    expect(ids).toContain(leaky)
    const before = await histories(src, ids)
    for (const round of [1, 2]) {
      const r = await importText(src, text)
      expect(r.status, `round ${round}: ${JSON.stringify(r.body)}`).toBe(200)
      expect(r.body).toMatchObject({created: 0, updated: 0, skipped: ids.length + 1, unchanged: ids.length, rejected: []})
      expect(await histories(src, ids)).toEqual(before)
    }
    // Overwriting changes nothing either when nothing differs.
    const over = await importText(src, text, {on_conflict: 'overwrite'})
    expect(over.body).toMatchObject({created: 0, updated: 0, rejected: []})
    expect(await histories(src, ids)).toEqual(before)
  })

  it('an entry changed in the file is scanned again: the acknowledgement still holds for the same audience', async () => {
    const recs = lines(await exportText(src))
    const e = recs.find((r) => r.id === leaky)
    e.title = 'Deploy key in the CI log (rotated)'
    const r = await importText(src, toNdjson(recs), {on_conflict: 'overwrite'})
    expect(r.body, JSON.stringify(r.body)).toMatchObject({updated: 1, rejected: []})
    expect((await src.request('GET', `/knowledge/${leaky}`)).body.title).toBe('Deploy key in the CI log (rotated)')
  })
})

describe('an entry stored as the file has it', () => {
  it('is skipped before it is scanned: a finding stored before safe publish existed refuses no import of the same entry', async () => {
    const made = await src.request('POST', '/knowledge', {body: {title: 'Old runbook', body: 'Nothing to see.', scope: 'global'}})
    expect(made.status).toBe(201)
    await storeUnscanned(src, made.body.id, `Kept from long ago:\n\n    ${line('github-pat')}\n`)
    const text = await exportText(src)
    const recs = lines(text)
    expect(recs.find((r) => r.id === made.body.id).body).toContain(line('github-pat'))
    const again = await importText(src, text)
    expect(again.body, JSON.stringify(again.body)).toMatchObject({created: 0, updated: 0, rejected: []})
    // Changed in the file, it is scanned like any other write into a shared scope.
    recs.find((r) => r.id === made.body.id).title = 'Old runbook (edited)'
    const changed = await importText(src, toNdjson(recs), {on_conflict: 'overwrite'})
    expect(changed.body.rejected).toEqual([{line: expect.any(Number), reason: expect.stringMatching(/sensitive content for global scope/)}])
  })
})

describe('an export imported into another server', () => {
  it('does not honour an acknowledgement made for another audience; once imported, a second import changes nothing', async () => {
    const text = await exportText(src)
    const first = await importText(dst, text)
    expect(first.status).toBe(200)
    // Signed by the server it was made on: here the finding is found again, and the whole import refused.
    const recs = lines(text)
    const lineOf = (id: string): number => recs.findIndex((r) => r.id === id) + 1
    // The acknowledged entry, and the one stored unscanned above: neither is as stored here.
    expect(first.body.rejected.map((r: {line: number}) => r.line)).toContain(lineOf(leaky))
    for (const r of first.body.rejected) expect(r.reason).toMatch(/sensitive content for global scope/)
    expect(first.body).toMatchObject({created: 0, updated: 0, skipped: 0})

    const ok = await importText(dst, text, {redact: true})
    expect(ok.body, JSON.stringify(ok.body)).toMatchObject({created: lines(text).length - 1, rejected: []})
    const ids = lines(text)
      .filter((r) => r.kind === 'entry')
      .map((r) => r.id as string)
    const before = await histories(dst, ids)
    const again = await importText(dst, text, {redact: true})
    expect(again.body).toMatchObject({created: 0, updated: 0, rejected: []})
    // The redacted entry differs from the file's: it is skipped (not overwritten) on a second import.
    expect(again.body.skipped).toBe(ids.length + 1)
    expect(await histories(dst, ids)).toEqual(before)
    const twice = await importText(dst, await exportText(dst))
    expect(twice.body).toMatchObject({created: 0, updated: 0, skipped: ids.length + 1, rejected: []})
    expect(await histories(dst, ids)).toEqual(before)
    expect(pop.entryIds.every((id) => ids.includes(id))).toBe(true)
  })
})
