/**
 * The fast lane of `GET /knowledge/:id` (server/http/fast-get.ts) answers exactly as fastify does: one daemon, every
 * request of a matrix sent twice as raw bytes — the lane on, then off — and the two answers compared byte for byte
 * (status line, every header in its order and case, body), but for what differs between any two answers: `Date`, a
 * generated `X-Request-Id`, and the entry's retrieval count, which each read moves. The lane's own count of what it
 * answered proves which requests it took; the rest must have reached fastify. The log line is compared on a child
 * daemon, whose stderr is the log.
 */
import {connect} from 'node:net'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {joinApproved, newPrincipal, startChildDaemon, startInProcessDaemon, type ChildDaemon} from '../helpers/daemon.js'
import type {FastLane} from '../../server/http/fast-get.js'
import {createEntry} from './endpoints/support.js'

let d: Awaited<ReturnType<typeof startInProcessDaemon>>
let lane: FastLane
let port: string
let host: string
let annKey: string
/** Entries by name: the owner's private, global and project entries, and ann's private and project ones (hidden from the owner). */
const e: Record<string, string> = {}

beforeAll(async () => {
  d = await startInProcessDaemon()
  lane = d.fastLane
  port = new URL(d.url).port
  host = `127.0.0.1:${port}`
  annKey = await newPrincipal(d, 'ann')
  const mine = (await joinApproved(d, 'git@example.com:owner/fast.git', d.ownerKey)).project.id as string
  const anns = (await joinApproved(d, 'git@example.com:ann/hidden.git', annKey)).project.id as string
  e.private = (
    await createEntry(d, {
      title: 'Ports «and» quotes "x" \\ é 🚀',
      body: 'Body with\nlines, \u2028 a separator, <html> & tabs\t; `code`.',
      tags: ['net', 'v1.2_x'],
      anchors: [{path: 'src/a.ts', lines: '1-2'}],
      thought_chain: [{thought: 'first, this'}],
    })
  ).id
  e.global = (await createEntry(d, {title: 'Global entry', body: 'Everyone sees it.', scope: 'global'})).id
  e.project = (await createEntry(d, {title: 'Project entry', body: 'Members see it.', scope: 'project', project_id: mine})).id
  expect((await d.request('POST', `/knowledge/${e.private}/comments`, {body: {body: 'A comment.'}})).status).toBe(201)
  e.annPrivate = (await createEntry(d, {title: 'Ann private', body: 'Only ann.'}, annKey)).id
  e.annProject = (await createEntry(d, {title: 'Ann project', body: 'Only her project.', scope: 'project', project_id: anns}, annKey)).id
})

afterAll(async () => {
  await d?.stop()
})

/** One request as raw bytes; resolves with the raw answer once it is complete (by Content-Length, or the connection's end). */
function exchange(raw: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1')
    const chunks: Buffer[] = []
    const done = (): void => {
      socket.destroy()
      resolve(Buffer.concat(chunks))
    }
    socket.on('data', (c: Buffer) => {
      chunks.push(c)
      const all = Buffer.concat(chunks)
      const end = all.indexOf('\r\n\r\n')
      if (end === -1) return
      const head = all.subarray(0, end).toString('latin1')
      const length = /\r\ncontent-length: *(\d+)/i.exec(head)
      const bodiless = raw.startsWith('HEAD ') || /^HTTP\/1\.\d (204|304)/.test(head)
      if (bodiless || (length && all.length - end - 4 >= Number(length[1]))) done()
    })
    socket.on('end', done)
    socket.on('error', reject)
    socket.write(raw)
  })
}

/**
 * The answer with what legitimately differs between two answers masked: the Date, a generated request id, and the
 * entry's usage (a count each read moves) — whose length is taken off Content-Length, which stays compared.
 */
function masked(answer: Buffer, sentRequestId: boolean): string {
  const text = answer.toString('utf8')
  const split = text.indexOf('\r\n\r\n')
  let head = text.slice(0, split)
  let body = text.slice(split + 4)
  let removed = 0
  body = body.replace(/"usage":\{"retrieved":\d+,"last_retrieved_at":(?:null|"[^"]*")\}/g, (m) => {
    removed += Buffer.byteLength(m)
    return '"usage":USAGE'
  })
  head = head.replace(/\r\nDate: [^\r]*/, '\r\nDate: DATE')
  if (!sentRequestId) head = head.replace(/\r\nx-request-id: [0-9a-f-]{36}(?=\r|$)/, '\r\nx-request-id: GENERATED')
  head = head.replace(/\r\ncontent-length: (\d+)/, (_m, n: string) => `\r\ncontent-length: ${Number(n) - removed}+usage`)
  return `${head}\r\n\r\n${body}`
}

interface Case {
  name: string
  /** The request line and headers (CRLF added), Host and Authorization not implied. */
  lines: string[]
  body?: string
  /** Whether the lane answers it (else fastify does). */
  lane: boolean
  status: number
}

const owner = (): string => `Authorization: Bearer ${d.ownerKey}`
const get = (path: string, ...headers: string[]): string[] => [`GET /api/v1${path} HTTP/1.1`, `Host: ${host}`, owner(), ...headers]

function cases(): Case[] {
  const p = `/knowledge/${e.private}`
  const missing = '01234567-89ab-7def-8123-456789abcdef'
  return [
    {name: 'an entry of the caller', lines: get(p), lane: true, status: 200},
    {name: 'detail=summary', lines: get(`${p}?detail=summary`), lane: true, status: 200},
    {name: 'detail=standard', lines: get(`${p}?detail=standard`), lane: true, status: 200},
    {name: 'detail=full (comments, thought chain)', lines: get(`${p}?detail=full`), lane: true, status: 200},
    {name: 'a global entry', lines: get(`/knowledge/${e.global}`), lane: true, status: 200},
    {name: 'a project entry of a member', lines: get(`/knowledge/${e.project}?detail=full`), lane: true, status: 200},
    {name: 'the id in upper case', lines: get(`/knowledge/${e.private!.toUpperCase()}`), lane: true, status: 200},
    {name: 'a client request id', lines: get(p, 'X-Request-Id: my-trace-42'), lane: true, status: 200},
    {name: 'an unusable request id', lines: get(p, 'X-Request-Id: two words'), lane: true, status: 200},
    {name: 'If-None-Match that matches', lines: get(p, 'If-None-Match: "1"'), lane: true, status: 200},
    {name: 'If-None-Match that does not', lines: get(p, 'If-None-Match: "7"'), lane: true, status: 200},
    {name: 'a cross-origin request', lines: get(p, 'Origin: https://evil.example'), lane: true, status: 200},
    {
      name: 'Host in capitals with the port',
      lines: get(p).map((l) => (l.startsWith('Host:') ? `Host: LOCALHOST:${port}` : l)),
      lane: true,
      status: 200,
    },
    {name: 'Connection: close', lines: get(p, 'Connection: close'), lane: true, status: 200},
    {name: 'HTTP/1.0', lines: [`GET /api/v1${p} HTTP/1.0`, `Host: ${host}`, owner()], lane: true, status: 200},
    {
      name: 'a recall client (the read is recorded)',
      lines: get(p, 'Kb-Recall-Client: test-hook', 'Kb-Recall-Session: s1'),
      lane: true,
      status: 200,
    },
    {name: 'kb-via', lines: get(p, 'Kb-Via: mcp'), lane: true, status: 200},
    {
      name: 'another principal, her project entry',
      lines: get(`/knowledge/${e.annProject}`).map((l) => (l.startsWith('Authorization') ? `Authorization: Bearer ${annKey}` : l)),
      lane: true,
      status: 200,
    },
    {name: 'a missing id', lines: get(`/knowledge/${missing}`), lane: false, status: 404},
    {name: "another principal's private entry", lines: get(`/knowledge/${e.annPrivate}`), lane: false, status: 404},
    {name: "an entry of another's project", lines: get(`/knowledge/${e.annProject}`), lane: false, status: 404},
    {name: 'a short id', lines: get(`/knowledge/${e.private!.slice(-7)}`), lane: false, status: 400},
    {name: 'not an id of 36 characters', lines: get(`/knowledge/${e.private!.replace(/-/g, 'x')}`), lane: false, status: 400},
    {name: 'a bad key', lines: get(p).map((l) => (l.startsWith('Authorization') ? `${l.slice(0, -1)}Q` : l)), lane: false, status: 401},
    {name: 'a key of another scheme', lines: get(p).map((l) => l.replace('Bearer', 'Basic')), lane: false, status: 401},
    {name: 'no key', lines: get(p).filter((l) => !l.startsWith('Authorization')), lane: false, status: 401},
    {name: 'a foreign Host', lines: get(p).map((l) => (l.startsWith('Host:') ? 'Host: evil.example' : l)), lane: false, status: 403},
    {name: 'two Host headers', lines: [...get(p), 'Host: localhost'], lane: false, status: 400},
    {name: 'no Host', lines: get(p).filter((l) => !l.startsWith('Host:')), lane: false, status: 400},
    {name: 'a trailing slash', lines: get(`${p}/`), lane: false, status: 200},
    {name: 'another query parameter', lines: get(`${p}?x=1`), lane: false, status: 200},
    {name: 'detail given twice', lines: get(`${p}?detail=full&detail=summary`), lane: false, status: 400},
    {name: 'an unknown detail', lines: get(`${p}?detail=everything`), lane: false, status: 400},
    {name: 'an empty query', lines: get(`${p}?`), lane: false, status: 200},
    {
      name: 'percent-encoded id',
      lines: get(`/knowledge/%30${e.private!.slice(1)}`),
      lane: false,
      status: e.private!.startsWith('0') ? 200 : 404,
    },
    {name: 'HEAD', lines: [`HEAD /api/v1${p} HTTP/1.1`, `Host: ${host}`, owner()], lane: false, status: 200},
    {
      name: 'OPTIONS preflight',
      lines: [`OPTIONS /api/v1${p} HTTP/1.1`, `Host: ${host}`, 'Origin: https://x.example', 'Access-Control-Request-Method: GET'],
      lane: false,
      status: 204,
    },
    {name: 'a body', lines: get(p, 'Content-Type: application/json', 'Content-Length: 2'), body: '{}', lane: false, status: 200},
    {name: 'a chunked body', lines: get(p, 'Transfer-Encoding: chunked'), body: '0\r\n\r\n', lane: false, status: 200},
    {name: 'another method', lines: [`POST /api/v1${p} HTTP/1.1`, `Host: ${host}`, owner(), 'Content-Length: 0'], lane: false, status: 405},
  ]
}

describe('the fast lane of GET /knowledge/:id', () => {
  it('answers every request of the matrix as fastify does, taking exactly the plain reads', async () => {
    for (const c of cases()) {
      const raw = `${c.lines.join('\r\n')}\r\n\r\n${c.body ?? ''}`
      const sentId = c.lines.some((l) => l.startsWith('X-Request-Id: my-'))
      lane.enabled = true
      const served = lane.served
      const fast = await exchange(raw)
      expect(lane.served - served, `${c.name}: taken by the lane`).toBe(c.lane ? 1 : 0)
      lane.enabled = false
      const slow = await exchange(raw)
      expect(lane.served - served, c.name).toBe(c.lane ? 1 : 0)
      expect(slow.toString('latin1').split('\r\n')[0], c.name).toMatch(new RegExp(`^HTTP/1\\.[01] ${c.status} `))
      expect(masked(fast, sentId), c.name).toBe(masked(slow, sentId))
    }
    lane.enabled = true
  })

  it('gives every answer its own generated request id, and echoes a client one', async () => {
    const idOf = (a: Buffer): string => /\r\nx-request-id: ([^\r]*)/.exec(a.toString('latin1'))![1]!
    const raw = `${get(`/knowledge/${e.private}`).join('\r\n')}\r\n\r\n`
    const [a, b] = [idOf(await exchange(raw)), idOf(await exchange(raw))]
    expect(a).toMatch(/^[0-9a-f-]{36}$/)
    expect(a).not.toBe(b)
    const mine = `${get(`/knowledge/${e.private}`, 'X-Request-Id: trace-1').join('\r\n')}\r\n\r\n`
    expect(idOf(await exchange(mine))).toBe('trace-1')
  })
})

describe('the request log of the fast lane', () => {
  let child: ChildDaemon
  beforeAll(async () => {
    child = await startChildDaemon()
  })
  afterAll(async () => {
    await child?.stop()
  })

  it('writes the line fastify writes: the same fields in the same order', async () => {
    const id = (await createEntry(child)).id as string
    // The lane answers the first; the trailing slash goes through fastify.
    for (const [path, trace] of [
      [`/knowledge/${id}?detail=full`, 'lane-1'],
      [`/knowledge/${id}/?detail=full`, 'fastify-1'],
    ] as const) {
      expect((await child.request('GET', path, {headers: {'X-Request-Id': trace}})).status).toBe(200)
    }
    let lines: string[] = []
    for (let i = 0; i < 50 && lines.length < 2; i++) {
      await new Promise((r) => setTimeout(r, 20))
      lines = child
        .stderr()
        .split('\n')
        .filter((l) => l.includes('"reqId":"lane-1"') || l.includes('"reqId":"fastify-1"'))
    }
    const shape = (line: string): string =>
      line
        .replace(/"time":\d+/, '"time":T')
        .replace(/"ms":[\d.]+/, '"ms":M')
        .replace(/"reqId":"[^"]+"/, '"reqId":R')
        .replace(`${id}/`, id)
    expect(lines).toHaveLength(2)
    expect(shape(lines[0]!)).toBe(shape(lines[1]!))
    expect(JSON.parse(lines[0]!)).toMatchObject({
      level: 30,
      reqId: 'lane-1',
      method: 'GET',
      url: `/api/v1/knowledge/${id}?detail=full`,
      status: 200,
      msg: 'request',
    })
  })
})
