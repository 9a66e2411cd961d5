/**
 * Component tests of the `kb browse` screen (ink-testing-library), its client talking real HTTP to an
 * in-process daemon: search as you type, navigation, the full view, filters and help, errors, keys typed
 * faster than redraws, the loading indicator behind a slow HTTP hop, the clipboard. The actions are in
 * browse-actions.test.tsx.
 */
import {createServer, request as httpRequest, type Server} from 'node:http'
import {render} from 'ink-testing-library'
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'
import {startInProcessDaemon, type TestDaemon} from '../../helpers/daemon.js'
import {httpClient} from '../../../src/cli/client/http-transport.js'
import {BrowseApp} from '../../../src/cli/tui/app.js'
import {copyText} from '../../../src/cli/tui/system.js'
import {KEY, live, row, selectedRow, ui, unmountAll} from './ink-ui.js'

let d: TestDaemon

async function add(title: string, extra: Record<string, unknown> = {}, key?: string): Promise<{id: string; title: string}> {
  const res = await d.request('POST', '/knowledge', {
    body: {title, body: `Body of ${title}.`, scope: 'global', ...extra},
    ...(key ? {key} : {}),
  })
  expect(res.status, res.text).toBe(201)
  return res.body
}

beforeAll(async () => {
  d = await startInProcessDaemon()
  // Oldest first: the empty search box lists the most recently updated first.
  await add('Zeta sqlite database is locked', {
    tags: ['sqlite', 'locking'],
    body: 'Two writers fought over the WAL.',
    thought_chain: [{thought: 'Only one daemon may own the store', kind: 'conclusion'}],
  })
  await add('Port 7411 already in use', {tags: ['daemon'], url: 'https://example.com/port'})
  for (let i = 1; i <= 14; i++) await add(`Filler entry number ${String(i).padStart(2, '0')}`)
})

afterAll(async () => {
  await d?.stop()
})

afterEach(unmountAll)

describe('kb browse: finding', () => {
  it('an empty box lists the latest entries; typing filters the list (debounced, stale answers dropped)', async () => {
    const u = ui(d)
    await u.waitFor('Filler entry number 14')
    expect(selectedRow(u.frame())).toContain('Filler entry number 14')
    expect(u.frame()).toContain('16 entries')
    await u.type('sqlite locked')
    const f = await u.waitFor(/1 match\b/)
    expect(f).toContain('Zeta sqlite database is locked')
    expect(f).not.toContain('Filler entry')
    expect(f).toContain('#sqlite #locking')
    // Backspacing everything brings the latest back.
    await u.press(...Array.from({length: 'sqlite locked'.length}, () => KEY.backspace))
    await u.waitFor('16 entries')
    await u.type('nothingmatcheszzz')
    await u.waitFor('No entries match "nothingmatcheszzz"')
  })

  it('moves the selection with ↓/↑, j/k, PgDn/PgUp, G/g and shows the selection in the detail pane', async () => {
    const u = ui(d, {rows: 24, columns: 80})
    await u.waitFor('Filler entry number 14')
    await u.press(KEY.down) // search box → list
    await u.press('j')
    await u.waitFor(row('Filler entry number 13'))
    await u.press(KEY.down, KEY.down)
    await u.waitFor(row('Filler entry number 11'))
    await u.press('k')
    await u.waitFor(row('Filler entry number 12'))
    await u.press('G')
    await u.waitFor(row('Zeta sqlite'))
    // Narrow terminal: the detail pane is below the list and shows the selected entry at standard.
    const f = u.frame()
    expect(f).toMatch(/^Zeta sqlite database is locked/m)
    expect(f).toContain('open · global · by owner')
    expect(f).toContain('Two writers fought over the WAL.')
    await u.press('g')
    await u.waitFor(row('Filler entry number 14'))
    // 24 rows leave 8 for the list (a frame one line shorter than the terminal): a page down moves 8 entries.
    await u.press(KEY.pgDown)
    await u.waitFor(row('Filler entry number 06'))
    await u.press(KEY.pgUp)
    await u.waitFor(row('Filler entry number 14'))
    // Every frame fits the terminal: 24 rows, 80 columns.
    for (const frame of [u.frame()]) {
      expect(frame.split('\n').length).toBeLessThanOrEqual(23)
      for (const l of frame.split('\n')) expect(l.length).toBeLessThanOrEqual(80)
    }
    // ↑ on the first row stays there: k is a move, never a letter of the query.
    await u.press(KEY.up, 'k', 'k')
    await u.waitFor(row('Filler entry number 14'))
    expect(u.frame()).toContain('Search › (/ to search)')
    await u.press('/', 'x')
    await u.waitFor('Search › x')
  })

  it('Enter opens the entry in full (thought chain, comments with types); it scrolls; Esc returns', async () => {
    const e = await add('Fully detailed entry', {
      body: Array.from({length: 40}, (_, i) => `Line ${i + 1} of the body.`).join('\n'),
      thought_chain: [{thought: 'Suspect the lock', kind: 'hypothesis'}],
    })
    await d.request('POST', `/knowledge/${e.id}/comments`, {body: {body: 'Seen on macOS too', type: 'supplement'}})
    const u = ui(d, {query: 'Fully detailed'})
    await u.waitFor(row('Fully detailed entry'))
    await u.press(KEY.enter)
    // The full view's own header (the detail pane beside the list shows the body's first lines too).
    await u.waitFor(/^author +owner$/m)
    expect(u.frame()).toContain('Line 1 of the body.')
    expect(u.frame()).not.toContain('Line 40 of the body.')
    await u.press('G')
    const bottom = await u.waitFor('Seen on macOS too')
    expect(bottom).toContain('owner · supplement')
    expect(bottom).toContain('1. [hypothesis] Suspect the lock')
    expect(bottom).not.toContain('Line 1 of the body.')
    await u.press('g')
    await u.waitFor('Line 1 of the body.')
    await u.press('j', 'j')
    await u.waitGone(/^Fully detailed entry/m)
    await u.press(KEY.esc)
    await u.waitFor(row('Fully detailed entry'))
    expect(u.frame()).toContain('Search › Fully detailed')
  })

  it('s cycles the scope, t toggles open/resolved/all, ? shows every key', async () => {
    const mine = await add('A private note of mine', {scope: 'private'})
    const u = ui(d, {query: 'private note'})
    await u.waitFor(row('A private note of mine'))
    await u.press('s') // all → private
    await u.waitFor('scope private · status all')
    await u.waitFor(row('A private note of mine'))
    await u.press('s') // → project
    await u.waitFor('scope project')
    await u.waitFor('No entries match')
    await u.press('s', 's') // → global → all
    await u.waitFor('scope all')
    await u.press('t')
    await u.waitFor('status open')
    await u.waitFor(row('A private note of mine'))
    await u.press('t')
    await u.waitFor('status resolved')
    await u.waitFor('No entries match')
    await u.press('t')
    await u.waitFor('status all')
    await u.press('?')
    const help = await u.waitFor('Results')
    for (const k of [
      'resolve (optional note)',
      'comment (Tab picks the type',
      'fork',
      'publish to a wider scope',
      "copy the entry's id",
      'delete (asks first',
      'status filter',
    ])
      expect(help).toContain(k)
    // Help takes its own keys (x does nothing) and Esc returns to where it was opened.
    await u.press('x')
    expect(u.frame()).toContain('Results')
    await u.press(KEY.esc)
    await u.waitFor(row('A private note of mine'))
    expect(mine.id).toBeTruthy()
  })

  it('shows a wide layout side by side, and an auth error with its fix instead of a stack trace', async () => {
    const wide = ui(d, {columns: 140, rows: 30, query: 'Port 7411'})
    const f = await wide.waitFor(/^› Port 7411 already in use.*│ Port 7411 already in use/m)
    expect(f).toContain('https://example.com/port')
    const bad = ui(d, {key: 'kb_not_a_real_key'})
    const err = await bad.waitFor('Could not load entries')
    // Wrapped at a space: the line break stands for it.
    expect(err.replace(/\s+/g, ' ')).toContain('kb auth login --web')
    expect(err).not.toMatch(/at .*\.js:\d+/)
    const down = httpClient({
      baseUrl: 'http://127.0.0.1:9/api/v1',
      unreachableHint: 'run `kb daemon start` or check --base-url',
      serverLabel: 'kb daemon',
    })
    const u = render(
      <BrowseApp client={down} columns={100} rows={30} openUrl={async () => true} copy={async () => ({where: null, certain: false})} />,
    )
    live.push(u)
    const end = Date.now() + 5000
    while (!(u.lastFrame() ?? '').includes('not reachable') && Date.now() < end) await new Promise((r) => setTimeout(r, 10))
    expect((u.lastFrame() ?? '').replace(/\n/g, '')).toContain('kb daemon start')
  })
})

describe('kb browse: timing and the machine', () => {
  it('keys typed faster than the screen redraws all count (one write after another, no pause)', async () => {
    const u = ui(d, {query: 'Port 7411'})
    await u.waitFor(row('Port 7411 already in use'))
    // Open the comment prompt, pick a type and type the text, all within one tick.
    for (const k of ['c', KEY.tab, ...'quick typing works']) u.raw(k)
    await u.waitFor('Comment [supplement] on "Port 7411 already in use"')
    await u.waitFor('Comment: quick typing works')
    await u.press(KEY.esc)
    await u.waitFor('Cancelled')
  })

  it('shows Loading… only when an answer takes longer than 100 ms', async () => {
    // A real HTTP hop in front of the daemon that answers searches late (a slow link or a busy server).
    const slow: Server = createServer((req, res) => {
      const target = new URL(d.url)
      const delay = req.url!.includes('/search') ? 600 : 0
      setTimeout(() => {
        const fwd = httpRequest(
          {host: target.hostname, port: target.port, path: req.url, method: req.method, headers: {...req.headers, host: target.host}},
          (r) => {
            res.writeHead(r.statusCode!, r.headers)
            r.pipe(res)
          },
        )
        req.pipe(fwd)
      }, delay)
    })
    await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r))
    try {
      const port = (slow.address() as {port: number}).port
      const client = httpClient({baseUrl: `http://127.0.0.1:${port}/api/v1`, key: d.ownerKey})
      const frames: string[] = []
      const started = Date.now()
      const app = render(
        <BrowseApp client={client} columns={100} rows={30} openUrl={async () => true} copy={async () => ({where: null, certain: false})} />,
      )
      live.push(app)
      const until = async (ok: () => boolean): Promise<void> => {
        const end = Date.now() + 5000
        while (!ok() && Date.now() < end) await new Promise((r) => setTimeout(r, 5))
        frames.push(app.lastFrame() ?? '')
      }
      // The listing is not delayed: answered within the grace, it never shows the indicator. (On a machine
      // so loaded that even it takes longer, showing the indicator is right, so only then is this not checked.)
      await until(() => (app.lastFrame() ?? '').includes('Filler entry number 14'))
      if (Date.now() - started < 100) expect(app.frames.some((f) => f.includes('Loading…'))).toBe(false)
      app.stdin.write('sqlite')
      const typed = Date.now()
      await until(() => (app.lastFrame() ?? '').includes('Loading…'))
      const shownAfter = Date.now() - typed
      expect(app.lastFrame()).toContain('Loading…')
      // debounce (150 ms) + the 100 ms grace, at least
      expect(shownAfter).toBeGreaterThanOrEqual(240)
      await until(() => (app.lastFrame() ?? '').includes('1 match'))
      expect(app.lastFrame()).not.toContain('Loading…')
    } finally {
      await new Promise((r) => slow.close(r))
    }
  })

  it('sends a plain OSC 52 where no clipboard tool can run (inside tmux too), and does not claim it copied', async () => {
    const written: string[] = []
    const sent = await copyText('01a2-id', {env: {PATH: '/nonexistent'}, write: (s) => written.push(s)})
    expect(sent).toEqual({where: "the terminal's clipboard (OSC 52)", certain: false})
    expect(written).toEqual([`\u001B]52;c;${Buffer.from('01a2-id').toString('base64')}\u0007`])
    // tmux drops a wrapped (passthrough) sequence by default but reads a plain one itself.
    const inTmux: string[] = []
    await copyText('x', {env: {PATH: '/nonexistent', TMUX: '/tmp/t,1,0'}, write: (s) => inTmux.push(s)})
    expect(inTmux).toEqual(['\u001B]52;c;eA==\u0007'])
  })
})
