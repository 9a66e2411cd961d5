/**
 * `kb browse` shows entries as rendered documents in a real terminal (the built binary in tmux): the
 * detail pane and the full view render the body's Markdown — headings without `#`, lists, code behind a
 * gutter in colour, a table fitted to the pane, links as text and URL — and comments and thoughts too;
 * escape sequences hidden in a code block or a link never reach the terminal, and no line is wider than
 * the pane.
 */
import {join} from 'node:path'
import {afterAll, beforeAll, expect, it} from 'vitest'
import {width} from '../../../src/cli/tui/text.js'
import {startChildDaemon, type ChildDaemon} from '../../helpers/daemon.js'
import {cleanup, makeUser, type KbEnv} from '../helpers.js'
import {requireSystem} from '../../helpers/system.js'
import {browseCommand, exitsIn, Tmux, until} from './tmux.js'

const system = requireSystem('tmux')
const ESC = '\u001b'

const BODY = `# Port 7411 already in use

The daemon **fails to start**; see [the docs](https://example.com/docs).

- find who holds it
- stop it

\`\`\`ts
const port = Number(process.env.KB_PORT ?? 7411) // ${ESC}]52;c;aGFja2Vk${ESC}\\clip ${ESC}[2J
\`\`\`

| Option | Default |
|---|---|
| \`--port\` | 7411 |

[hidden ${ESC}]8;;https://evil.example${ESC}\\link${ESC}]8;;${ESC}\\](https://example.com/shown)`

let d: ChildDaemon
let user: KbEnv
let tmux: Tmux

beforeAll(async () => {
  user = makeUser()
  d = await startChildDaemon({dataDir: user.dataDir})
  const r = await d.request('POST', '/knowledge', {
    body: {title: 'Port in use', body: BODY, scope: 'global', thought_chain: [{thought: 'A **stale** daemon', kind: 'hypothesis'}]},
  })
  expect(r.status, r.text).toBe(201)
  const c = await d.request('POST', `/knowledge/${r.body.id}/comments`, {body: {body: 'Seen on *macOS*: `lsof` needs sudo', type: 'note'}})
  expect(c.status).toBe(201)
  tmux = new Tmux(user.root, {...user.env, KB_BASE_URL: d.url, KB_API_KEY: d.ownerKey, KB_NO_AUTOSTART: '1', TERM: 'xterm-256color'})
  if (system.available) await tmux.start()
})

afterAll(async () => {
  if (system.available) await tmux?.stop()
  await d?.stop()
  if (user) await cleanup(user)
})

system.describe('kb browse renders Markdown (tmux)', () => {
  it('the detail pane and the full view show the entry as a document, nothing from it escaping', async () => {
    const exits = join(user.root, 'md.exits')
    const p = await tmux.pane('md', browseCommand(['port'], exits), {columns: 100, rows: 40})
    const detail = await p.waitFor('the docs (https://example.com/docs)')
    expect(detail).toMatch(/^Port 7411 already in use$/m)
    expect(detail).not.toMatch(/^#+ /m)
    expect(detail).not.toContain('```')
    expect(detail).not.toContain('**')
    expect(detail).toMatch(/^• find who holds it$/m)
    expect(detail).toMatch(/^│ const port = Number\(process\.env\.KB_PORT \?\? 7411\) \/\/ clip$/m)
    expect(detail).toMatch(/^Option\s+│ Default$/m)
    for (const line of detail.split('\n')) expect(width(line), line).toBeLessThanOrEqual(100)
    // In colour: the code's keyword and the heading carry SGR codes on the screen.
    const coloured = await tmux.run('capture-pane', '-p', '-e', '-t', 'md')
    expect(coloured).toMatch(new RegExp(`${ESC}\\[[0-9;]*m(${ESC}\\[[0-9;]*m)*const`))
    expect(coloured).toMatch(new RegExp(`${ESC}\\[[0-9;]*m(${ESC}\\[[0-9;]*m)*Port 7411 already in use`))

    await p.keys('Enter')
    const full = await p.waitFor('Comments (1)')
    expect(full).toContain('1. [hypothesis] A stale daemon')
    expect(full).toContain('Seen on macOS: lsof needs sudo')
    expect(full).toContain('hidden link (https://example.com/shown)')
    for (const line of full.split('\n')) expect(width(line), line).toBeLessThanOrEqual(100)
    await p.keys('q', 'q')
    await until(
      () => exitsIn(exits),
      (e) => e.length === 1,
      'kb browse should exit after q',
    )
    const raw = p.output()
    expect(raw).not.toContain(`${ESC}]52`)
    expect(raw).not.toContain(`${ESC}]8;`)
    expect(raw).not.toContain('evil.example')
    expect(raw.split(`${ESC}[2J`)).toHaveLength(2) // the one clear of entering the alternate screen
  })
})
