/**
 * Malformed imports get a clear report (line number and reason) or a 4xx problem, never a 5xx, and
 * change nothing: not JSON, no header, a wrong version, wrong types, unknown fields, invalid UTF-8,
 * a line over the limit, the wrong media type, a body declared over 512 MiB.
 */
import {request} from 'node:http'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {startInProcessDaemon, type TestDaemon} from '../../helpers/daemon.js'
import {content, exportText, importText, toNdjson} from './support.js'

let d: TestDaemon
let before: string[]
const HEADER = {kind: 'kb-export', version: 1}
const entry = (n: number, extra: object = {}): object => ({
  kind: 'entry',
  id: `0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a79${String(n).padStart(2, '0')}`,
  title: `Entry ${n}`,
  body: 'text',
  ...extra,
})

beforeAll(async () => {
  d = await startInProcessDaemon()
  expect((await d.request('POST', '/knowledge', {body: {title: 'Already here', body: 'x', scope: 'global'}})).status).toBe(201)
  before = content(await exportText(d))
})
afterAll(async () => {
  await d?.stop()
})

async function rejects(body: string | Buffer): Promise<Array<{line: number; reason: string}>> {
  const r = await importText(d, body)
  expect(r.status).toBe(200)
  expect(r.body).toMatchObject({created: 0, updated: 0, skipped: 0})
  expect(r.body.rejected.length).toBeGreaterThan(0)
  return r.body.rejected
}

describe('malformed imports', () => {
  it('reports each bad line with its number and reason, and applies none', async () => {
    const text = [
      JSON.stringify(HEADER),
      JSON.stringify(entry(1)),
      '{"kind": "entry", "id": ', // not JSON
      '[1, 2]',
      JSON.stringify(entry(2, {title: 5})),
      JSON.stringify(entry(3, {tags: 'a,b'})),
      JSON.stringify(entry(4, {summary: 'derived fields are not input'})),
      JSON.stringify(entry(5, {created_at: 'yesterday'})),
      JSON.stringify(
        entry(6, {
          status: 'open',
          resolution: {
            note: null,
            url: null,
            resolved_by: {id: '0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7900', name: 'x'},
            resolved_at: '2026-01-01T00:00:00Z',
          },
        }),
      ),
      JSON.stringify({kind: 'comment', id: 'x'}),
      JSON.stringify(entry(1)),
      JSON.stringify(HEADER),
      '',
      JSON.stringify(entry(7, {url: 'ftp://example.com/x'})),
    ].join('\n')
    const rejected = await rejects(text)
    expect(rejected.map((r) => r.line)).toEqual([3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 14])
    const reason = (line: number): string => rejected.find((r) => r.line === line)!.reason
    expect(reason(3)).toMatch(/^not valid JSON/)
    expect(reason(4)).toBe('not a JSON object')
    expect(reason(5)).toMatch(/^title: /)
    expect(reason(6)).toMatch(/^tags: /)
    expect(reason(7)).toBe('summary: unknown field')
    expect(reason(8)).toMatch(/^created_at: /)
    expect(reason(9)).toBe('resolution: must be null for an open entry')
    expect(reason(10)).toMatch(/unknown kind "comment"/)
    expect(reason(11)).toMatch(/appears on an earlier line too/)
    expect(reason(12)).toMatch(/second header/)
    expect(reason(14)).toMatch(/^url: must be an absolute http/)
    expect(content(await exportText(d))).toEqual(before)
  })

  it('the header: missing, of another version, or the body empty', async () => {
    expect(await rejects(toNdjson([entry(1)]))).toEqual([{line: 1, reason: expect.stringContaining('the first line must be the header')}])
    expect(await rejects(toNdjson([{kind: 'kb-export', version: 2}, entry(1)]))).toEqual([
      {line: 1, reason: expect.stringContaining('version 2 is not supported')},
    ])
    expect(await rejects(toNdjson([{kind: 'kb-export', version: '1'}]))).toEqual([
      {line: 1, reason: expect.stringContaining('version "1" is not supported')},
    ])
    expect(await rejects(toNdjson([{...HEADER, extra: true}]))).toEqual([{line: 1, reason: 'extra: unknown field'}])
    expect(await rejects('')).toEqual([{line: 1, reason: expect.stringContaining('the body is empty')}])
    expect(await rejects('\n\n  \n')).toEqual([{line: 1, reason: expect.stringContaining('the body is empty')}])
    expect(await rejects('this is not an export at all')).toEqual([{line: 1, reason: expect.stringMatching(/^not valid JSON/)}])
  })

  it('invalid UTF-8 and a line over 16 MiB are reported, and the lines after them still read', async () => {
    const bad = Buffer.concat([
      Buffer.from(`${JSON.stringify(HEADER)}\n{"kind":"entry","title":"`),
      Buffer.from([0xc3, 0x28]),
      Buffer.from('"}\n'),
    ])
    expect(await rejects(bad)).toEqual([{line: 2, reason: 'line is not valid UTF-8'}])
    const huge = `${JSON.stringify(HEADER)}\n${JSON.stringify(entry(1, {body: 'x'.repeat(17 * 1024 * 1024)}))}\n${JSON.stringify(entry(2, {title: ''}))}\n`
    const rejected = await rejects(huge)
    expect(rejected).toEqual([
      {line: 2, reason: expect.stringMatching(/^line is longer than 16 MiB/)},
      {line: 3, reason: expect.stringMatching(/^title: /)},
    ])
    expect(content(await exportText(d))).toEqual(before)
  })

  it('wrong media types and oversized bodies are 4xx problems', async () => {
    const json = await d.request('POST', '/import', {body: {kind: 'kb-export', version: 1}})
    expect(json.status).toBe(415)
    expect(json.body.code).toBe('unsupported_media_type')
    const none = await d.request('POST', '/import', {})
    expect(none.status).toBe(415)
    // Other routes keep refusing what is not JSON, and keep their 1 MiB limit.
    const ndjsonElsewhere = await d.request('POST', '/knowledge', {raw: '{"title":"a","body":"b"}', contentType: 'application/x-ndjson'})
    expect(ndjsonElsewhere.status).toBe(415)
    const big = await d.request('POST', '/knowledge', {body: {title: 'a', body: 'x'.repeat(1024 * 1024)}})
    expect(big.status).toBe(413)
    // A body declared larger than 512 MiB is refused before it is read.
    const declared = await new Promise<{status: number; body: string}>((resolve, reject) => {
      const req = request(
        `${d.url}/import`,
        {
          method: 'POST',
          headers: {
            authorization: `Bearer ${d.ownerKey}`,
            'content-type': 'application/x-ndjson',
            'content-length': String(600 * 1024 * 1024),
          },
        },
        (res) => {
          let body = ''
          res.on('data', (c: Buffer) => (body += c.toString()))
          res.on('end', () => {
            req.destroy()
            resolve({status: res.statusCode!, body})
          })
        },
      )
      req.on('error', reject)
      req.write(`${JSON.stringify(HEADER)}\n`)
    })
    expect(declared.status).toBe(413)
    expect(JSON.parse(declared.body)).toMatchObject({code: 'payload_too_large', detail: expect.stringContaining('512 MiB')})
    const unauth = await importText(d, toNdjson([HEADER]), {}, 'kb_notakey')
    expect(unauth.status).toBe(401)
    expect(content(await exportText(d))).toEqual(before)
  })
})
