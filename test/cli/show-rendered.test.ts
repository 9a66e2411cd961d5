/**
 * `kb show` renders an entry's Markdown on a terminal (a real pseudo-terminal, through `script`) and
 * nowhere else: piped output is the Markdown as stored, byte for byte, and so is `--raw` on a terminal,
 * NO_COLOR and `--json`. The rendered document fits the terminal's width, follows KB_THEME, and renders
 * comments, thoughts and the resolution note too.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {displayWidth} from '../../src/cli/output/format.js'
import type {ChildDaemon} from '../helpers/daemon.js'
import {cleanup, kb, kbTty, type KbEnv, userWithDaemon} from './helpers.js'

const BODY = `# Port 7411 already in use

The daemon **fails to start** with \`EADDRINUSE\` when another process holds the port; see [the docs](https://example.com/docs).

## Fix

1. Find who holds it:

   \`\`\`sh
   lsof -iTCP:7411 -sTCP:LISTEN
   \`\`\`

2. Stop it, or start on another port.

| Option | Default |
|---|---|
| \`--port\` | 7411 |

\`\`\`ts
const port = Number(process.env.KB_PORT ?? 7411)
\`\`\``

const SGR = /\u001b\[[0-9;]*m/g
const strip = (s: string): string => s.replace(SGR, '')

let d: ChildDaemon
let user: KbEnv
let id: string

beforeAll(async () => {
  ;({user, d} = await userWithDaemon({TERM: 'xterm-256color'}))
  const created = await d.request('POST', '/knowledge', {
    body: {
      title: 'Port 7411 already in use',
      body: BODY,
      scope: 'global',
      thought_chain: [{thought: 'Suspect a **stale** daemon', kind: 'hypothesis'}],
    },
  })
  expect(created.status, created.text).toBe(201)
  id = created.body.id
  expect(
    (await d.request('POST', `/knowledge/${id}/comments`, {body: {body: 'Also on *macOS*: `lsof` needs sudo', type: 'note'}})).status,
  ).toBe(201)
  expect((await d.request('POST', `/knowledge/${id}/resolve`, {body: {note: 'Stopped with `kb daemon stop`'}})).status).toBe(200)
})

afterAll(async () => {
  await d?.stop()
  if (user) await cleanup(user)
})

describe('kb show on a terminal', () => {
  it.each([80, 120])('renders the body as a document %i columns wide', async (cols) => {
    const r = await kbTty(user, ['show', id, '--no-pager'], {cols})
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(SGR)
    // Only kb's own SGR codes: no other escape sequence, no OSC 8 link.
    expect(r.stdout.replace(SGR, '')).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/)
    const text = strip(r.stdout)
    expect(text).not.toContain('```')
    expect(text).not.toMatch(/^#+ /m)
    expect(text).not.toContain('**')
    expect(text).toContain('The daemon fails to start with EADDRINUSE')
    expect(text).toContain('the docs (https://example.com/docs)')
    expect(text).toMatch(/^1\. Find who holds it:$/m)
    expect(text).toMatch(/^ {3}│ lsof -iTCP:7411 -sTCP:LISTEN$/m)
    expect(text).toMatch(/^Option\s+│ Default$/m)
    expect(text).toMatch(/^│ const port = Number\(process\.env\.KB_PORT \?\? 7411\)$/m)
    for (const line of text.split('\n')) expect(displayWidth(line), line).toBeLessThanOrEqual(cols)
  })

  it('renders comments, thoughts and the resolution note at --detail full', async () => {
    const r = await kbTty(user, ['show', id, '--detail', 'full', '--no-pager'])
    expect(r.code, r.stderr).toBe(0)
    const text = strip(r.stdout)
    expect(text).toContain('1. [hypothesis] Suspect a stale daemon')
    expect(text).toContain('Also on macOS: lsof needs sudo')
    expect(text).toMatch(/Resolution note\nStopped with kb daemon stop/)
  })

  it('follows KB_THEME (dark, light) and COLORFGBG', async () => {
    const dark = await kbTty(user, ['show', id, '--no-pager'], {env: {KB_THEME: 'dark'}})
    const light = await kbTty(user, ['show', id, '--no-pager'], {env: {KB_THEME: 'light'}})
    const fgbg = await kbTty(user, ['show', id, '--no-pager'], {env: {COLORFGBG: '0;15'}})
    expect(dark.stdout).toContain('\u001b[1;4;95mPort 7411 already in use\u001b[0m')
    expect(light.stdout).toContain('\u001b[1;4;35mPort 7411 already in use\u001b[0m')
    // The same document; the retrieval count between them may have been written meanwhile (every 5 s, in batches).
    const uncounted = (out: string): string => out.replace(/^.*retrieved.*$/m, '')
    expect(uncounted(fgbg.stdout)).toBe(uncounted(light.stdout))
  })

  it('--raw, NO_COLOR and --json print the Markdown as stored', async () => {
    const raw = await kbTty(user, ['show', id, '--raw', '--no-pager'])
    expect(raw.code, raw.stderr).toBe(0)
    expect(raw.stdout).toMatch(SGR) // the metadata keeps its colours
    expect(raw.stdout).toContain(`\n${BODY}\n`)
    const noColor = await kbTty(user, ['show', id, '--no-pager'], {env: {NO_COLOR: '1'}})
    expect(noColor.stdout).not.toContain('\u001b')
    expect(noColor.stdout).toContain(`\n${BODY}\n`)
    const json = await kbTty(user, ['show', id, '--json'])
    expect(JSON.parse(json.stdout).body).toBe(BODY)
  })
})

describe('kb show piped', () => {
  it('prints the Markdown as stored, without an escape, as before', async () => {
    const r = await kb(user, ['show', id])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).not.toContain('\u001b')
    expect(r.stdout.endsWith(`\n--\n${BODY}\n`)).toBe(true)
    expect(r.stdout.startsWith('title:\tPort 7411 already in use\n')).toBe(true)
  })
})
