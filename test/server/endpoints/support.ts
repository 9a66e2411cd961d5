/**
 * @module What the endpoint tests share: the exact field sets of each detail level (docs/api.md, "Detail levels"), a strict
 * RFC 9457 problem assertion, and small request helpers over a real daemon.
 */
import {expect} from 'vitest'
import type {EntryStandard} from '../../../src/shared/types.js'
import {joinApproved, type HttpResult, type TestDaemon} from '../../helpers/daemon.js'

export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
export const ISO_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
export const API_KEY_RE = /^kb_[0-9A-Za-z]{43}$/

export const SUMMARY_FIELDS = ['body', 'freshness', 'id', 'status', 'title']
export const STANDARD_FIELDS = [
  ...SUMMARY_FIELDS,
  'anchors',
  'author',
  'comment_count',
  'confidence',
  'flags',
  'created_at',
  'forked_from',
  'project_id',
  'scope',
  'tags',
  'updated_at',
  'url',
  'usage',
  'version',
  'superseded_by',
].sort()
export const FULL_FIELDS = [...STANDARD_FIELDS, 'branches', 'comments', 'comments_truncated', 'resolution', 'thought_chain'].sort()
/** A create's or fork's answer: the entry at full detail plus `similar` (docs/api.md, "Similar entries on write"). */
export const CREATED_FIELDS = [...FULL_FIELDS, 'similar'].sort()

const PROBLEM_TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  412: 'Precondition Failed',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
}
const CODES: Record<number, string> = {
  400: 'bad_request',
  401: 'unauthenticated',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  409: 'conflict',
  412: 'precondition_failed',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  422: 'validation_failed',
}

/** A UUID that names nothing in any store (v4, never issued by the server, which mints v7). */
export const MISSING_ID = '00000000-0000-4000-8000-000000000000'

export function keysOf(o: object): string[] {
  return Object.keys(o).sort()
}

/** Asserts an RFC 9457 problem with kb's fields and returns it; `errorPaths` must all be listed in `errors`. */
export function expectProblem(res: HttpResult, status: number, errorPaths?: string[]): Record<string, any> {
  const where = `${status} expected, got ${res.status}: ${res.text.slice(0, 400)}`
  expect(res.status, where).toBe(status)
  expect(res.headers.get('content-type') ?? '', where).toMatch(/^application\/problem\+json(;|$)/)
  const p = res.body as Record<string, any>
  expect(typeof p, where).toBe('object')
  expect(p.type, where).toBe('about:blank')
  expect(p.title, where).toBe(PROBLEM_TITLES[status])
  expect(p.status, where).toBe(status)
  expect(p.code, where).toBe(CODES[status])
  expect(typeof p.detail, where).toBe('string')
  expect(p.detail.length, where).toBeGreaterThan(0)
  // Errors carry the request id too: that is how a user's report is found in the log.
  expect(res.headers.get('x-request-id'), where).toBeTruthy()
  // No stack traces, ever.
  expect(res.text, where).not.toMatch(/\bat [\w.<>]+ \(|node_modules|\.ts:\d+/)
  if (errorPaths) {
    expect(Array.isArray(p.errors), where).toBe(true)
    const paths = (p.errors as Array<{path: string; message: string}>).map((e) => e.path)
    for (const e of p.errors as Array<{path: string; message: string}>) expect(typeof e.message).toBe('string')
    for (const path of errorPaths) expect(paths, `${where}\nerrors: ${JSON.stringify(p.errors)}`).toContain(path)
  }
  return p
}

export interface EntryInput {
  title?: string
  body?: string
  scope?: string
  project_id?: string | null
  tags?: string[]
  url?: string | null
  thought_chain?: Array<{thought: string; kind?: string}>
  anchors?: Array<{path: string; lines?: string | null; symbol?: string | null; commit?: string | null; hash?: string | null}>
}

/** Creates an entry, insisting on 201, and returns its full view (without the answer's `similar`, which a GET has not). */
export async function createEntry(d: TestDaemon, input: EntryInput = {}, key?: string): Promise<Record<string, any>> {
  const body = {title: 'An entry', body: 'Some body text.', ...input}
  const res = await d.request('POST', '/knowledge', {body, ...(key ? {key} : {})})
  if (res.status !== 201) throw new Error(`create failed: ${res.status} ${res.text}`)
  const {similar: _similar, ...entry} = res.body as Record<string, any>
  return entry
}

/** Joins (or creates) the project of `remote`; another principal's join of an existing one is approved by the owner. */
export async function joinProject(d: TestDaemon, remote: string, key?: string): Promise<Record<string, any>> {
  return (await joinApproved(d, remote, key ?? d.ownerKey)).project
}

/** Walks a list through its cursors and returns every item. */
export async function listAll(d: TestDaemon, query: Record<string, string | number | undefined>, key?: string): Promise<EntryStandard[]> {
  const items: EntryStandard[] = []
  let cursor: string | undefined
  for (let page = 0; page < 1000; page++) {
    const res = await d.request('GET', '/knowledge', {query: {limit: 100, ...query, cursor}, ...(key ? {key} : {})})
    if (res.status !== 200) throw new Error(`list failed: ${res.status} ${res.text}`)
    items.push(...res.body.items)
    if (res.body.next_cursor === null) return items
    cursor = res.body.next_cursor
  }
  throw new Error('list did not end')
}

/** Waits until the clock has moved past the given ISO time, so two writes get different timestamps. */
export async function tick(): Promise<void> {
  const start = Date.now()
  while (Date.now() === start) await new Promise((r) => setTimeout(r, 1))
}

/** A request through node:http, for what fetch will not send (a foreign Host header, a lying Content-Length). */
export async function rawRequest(
  baseUrl: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string | Buffer,
): Promise<{status: number; headers: Record<string, string | string[] | undefined>; text: string; json: any}> {
  const {request} = await import('node:http')
  const u = new URL(baseUrl + path)
  return new Promise((resolve, reject) => {
    const req = request({host: u.hostname, port: u.port, path: u.pathname + u.search, method, headers}, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8')
        let json: unknown
        try {
          json = JSON.parse(text)
        } catch {
          json = null
        }
        resolve({status: res.statusCode ?? 0, headers: res.headers, text, json})
      })
    })
    req.on('error', reject)
    if (body !== undefined) req.write(body)
    req.end()
  })
}
