/**
 * Other people's text on your terminal, end to end through the built `kb`: an entry whose title, body, tags,
 * thought chain, comment, resolution note, branch and project name carry OSC 52 (set the clipboard),
 * OSC 8 (a hidden link), ESC[2J (clear the screen) and C1 controls reaches `kb show`, `kb list`, `kb search`
 * and an error message without a single escape sequence of its own, on a pseudo-terminal (kb's colours stay)
 * and piped; `--json` keeps it exact. And tables of CJK, emoji and combining titles stay aligned on a terminal.
 */
import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {displayWidth} from '../../src/cli/output/format.js'
import {newPrincipal, type ChildDaemon} from '../helpers/daemon.js'
import {ANSI_RE, cleanup, kb, kbTty, type KbEnv, userWithDaemon} from './helpers.js'

const ESC = '\u001b'
const BEL = '\u0007'
/** Every trick at once, around words that must survive: "click" (the link's text) and "zebra". */
const EVIL = `zebra ${ESC}]52;c;cm0gLXJmIH4=${BEL}${ESC}]8;;https://evil.example${ESC}\\click${ESC}]8;;${ESC}\\ ${ESC}[2J${ESC}[H\u009b31mC1\u009d0;title${BEL}\u0085 end`
const KB_SGR = new RegExp(ANSI_RE.source, 'g')

/** The controls left in `out` once kb's own colour sequences (SGR, only on a terminal) are set aside. */
function controls(out: string, tty: boolean): string[] {
  const rest = tty ? out.replace(KB_SGR, '') : out

  return [...rest.matchAll(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g)].map(
    (m) => `U+${m[0].codePointAt(0)!.toString(16).padStart(4, '0')} at ${m.index}`,
  )
}

let d: ChildDaemon
let user: KbEnv
let id: string
/** A server whose every answer is a problem echoing EVIL, as a hostile or compromised server could send. */
let server: Server
let hostile: string

beforeAll(async () => {
  server = createServer((_req, res) => {
    res.writeHead(404, {'content-type': 'application/problem+json'})
    res.end(JSON.stringify({type: 'about:blank', title: 'Not Found', status: 404, code: 'not_found', detail: `no entry ${EVIL}`}))
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  hostile = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`
  ;({user, d} = await userWithDaemon({TERM: 'xterm-256color'}))
  const mallory = await newPrincipal(d, 'mallory') // principal names are [A-Za-z0-9._-]: nothing to smuggle there
  const created = await d.request('POST', '/knowledge', {
    key: mallory,
    body: {
      title: `Title ${EVIL}`,
      body: `Body ${EVIL}\nsecond line`,
      scope: 'global',
      tags: ['ops'],
      thought_chain: [{thought: `Thought ${EVIL}`, kind: 'observation'}],
    },
  })
  expect(created.status, created.text).toBe(201)
  id = created.body.id
  expect((await d.request('POST', `/knowledge/${id}/comments`, {key: mallory, body: {body: `Comment ${EVIL}`, type: 'note'}})).status).toBe(
    201,
  )
  expect((await d.request('POST', `/knowledge/${id}/fork`, {key: mallory, body: {title: `Branch ${EVIL}`, scope: 'global'}})).status).toBe(
    201,
  )
  expect((await d.request('POST', `/knowledge/${id}/resolve`, {key: mallory, body: {note: `Note ${EVIL}`}})).status).toBe(200)
  const project = await d.request('POST', '/projects/join', {
    body: {
      remote: 'git@github.com:acme/evil.git',
      name: `Project zebra ${ESC}]52;c;eA==${BEL}${ESC}]8;;https://evil.example${ESC}\\x${ESC}[2J\u009b31m`,
    },
  }) // names: ≤ 100 characters
  expect(project.status, project.text).toBe(201)
  for (const title of ['数据库被锁定：两个进程同时打开了存储', 'Deploy 🚀 failed 👍🏽 again 👨‍👩‍👧', 'Café crème brûlée with combining marks']) {
    const r = await d.request('POST', '/knowledge', {body: {title, body: 'width', scope: 'global'}})
    expect(r.status, r.text).toBe(201)
  }
})

afterAll(async () => {
  server?.close()
  await d?.stop()
  if (user) await cleanup(user)
})

describe.each([
  ['on a terminal', true],
  ['piped', false],
])('hostile text %s', (_, tty) => {
  const run = (args: string[]) => (tty ? kbTty(user, args) : kb(user, args))

  it('kb show --detail full: no escape sequence or control from the entry, its comment, thought chain, note or branch', async () => {
    const r = await run(['show', id, '--detail', 'full', '--no-pager'])
    expect(r.code, r.stderr).toBe(0)
    expect(controls(r.stdout, tty)).toEqual([])
    for (const part of [
      'Title zebra',
      'Body zebra',
      'Thought zebra',
      'Comment zebra',
      'Note zebra',
      'Branch zebra',
      'mallory',
      'click',
      'end',
    ])
      expect(r.stdout).toContain(part)
    expect(r.stdout).not.toContain('52;c;')
    expect(r.stdout).not.toContain('evil.example')
    if (tty) expect(r.stdout).toMatch(ANSI_RE) // kb's own colours stay
  })

  it("kb list, kb search and kb project list: rows without the entry's escapes", async () => {
    for (const args of [
      ['list', '--no-pager'],
      ['search', 'zebra'],
      ['project', 'list'],
    ]) {
      const r = await run(args)
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0)
      expect(controls(r.stdout, tty), args.join(' ')).toEqual([])
      expect(r.stdout, args.join(' ')).toMatch(/(Title|Project) zebra/)
    }
  })

  it("an error that echoes the server's words prints them safely", async () => {
    const r = await (tty ? kbTty : kb)(user, ['show', id], {env: {KB_BASE_URL: hostile, KB_API_KEY: 'kb_any', KB_NO_AUTOSTART: '1'}})
    expect(r.code).toBe(3)
    const said = tty ? r.stdout + r.stderr : r.stderr
    expect(said).toContain('no entry zebra')
    expect(said).toContain('click')
    expect(controls(said, tty)).toEqual([])
  })
})

describe('--json', () => {
  it('keeps the text exact (JSON escapes it)', async () => {
    const r = await kb(user, ['show', id, '--detail', 'full', '--json'])
    const e = JSON.parse(r.stdout)
    expect(e.title).toBe(`Title ${EVIL}`)
    expect(e.comments[0].body).toBe(`Comment ${EVIL}`)
    expect(controls(r.stdout, false)).toEqual([])
    const err = await kb(user, ['show', id, '--json'], {env: {KB_BASE_URL: hostile, KB_API_KEY: 'kb_any', KB_NO_AUTOSTART: '1'}})
    expect(JSON.parse(err.stdout).error.message).toContain(`no entry ${EVIL}`)
    expect(controls(err.stdout, false)).toEqual([])
  })
})

describe('display width on a terminal', () => {
  it('kb list keeps CJK, emoji and combining titles aligned and within the terminal width', async () => {
    for (const cols of [100, 140]) {
      const r = await kbTty(user, ['list', '--no-pager'], {cols})
      expect(r.code, r.stderr).toBe(0)
      const lines = r.stdout.replace(KB_SGR, '').trimEnd().split('\n')
      expect(lines.some((l) => l.includes('数据库'))).toBe(true)
      // UPDATED (a date, the last column) starts at the same display column on every row.
      const at = (l: string): number => displayWidth(l.slice(0, l.search(/(UPDATED|\d{4}-\d\d-\d\d \d\d:\d\d)$/)))
      for (const l of lines) {
        expect(displayWidth(l), l).toBeLessThanOrEqual(cols)
        expect(at(l), l).toBe(at(lines[0]!))
      }
    }
  })
})
