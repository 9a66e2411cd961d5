/**
 * Component tests of the `kb browse` screen (ink-testing-library), its client talking real HTTP to an
 * in-process daemon: search as you type, navigation, the full view, and every action's happy and
 * error paths, each checked through the API afterwards.
 */
import {createServer, request as httpRequest, type Server} from 'node:http'
import {render} from 'ink-testing-library'
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'
import {httpClient} from '../../../src/cli/client/http-transport.js'
import {BrowseApp, type BrowseProps} from '../../../src/cli/tui/app.js'
import {copyText} from '../../../src/cli/tui/system.js'
import {newPrincipal, startInProcessDaemon, type TestDaemon} from '../../helpers/daemon.js'

const KEY = {
  up: '\u001B[A',
  down: '\u001B[B',
  enter: '\r',
  esc: '\u001B',
  tab: '\t',
  backspace: '\u007F',
  pgDown: '\u001B[6~',
  pgUp: '\u001B[5~',
}

let d: TestDaemon
let other: string
const live: {unmount: () => void}[] = []

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
  other = await newPrincipal(d, 'bob')
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

afterEach(() => {
  while (live.length > 0) live.pop()!.unmount()
})

interface Ui {
  /** Writes a key with no pause after it. */
  raw: (key: string) => void
  frame: () => string
  press: (...keys: string[]) => Promise<void>
  type: (text: string) => Promise<void>
  waitFor: (text: string | RegExp, ms?: number) => Promise<string>
  waitGone: (text: string | RegExp, ms?: number) => Promise<string>
  opened: string[]
  copied: string[]
}

function ui({key, ...props}: Partial<BrowseProps> & {key?: string} = {}): Ui {
  const client = httpClient({baseUrl: d.url, key: key ?? d.ownerKey})
  const opened: string[] = []
  const copied: string[] = []
  const app = render(
    <BrowseApp
      client={client}
      columns={props.columns ?? 100}
      rows={props.rows ?? 30}
      openUrl={async (u) => (opened.push(u), true)}
      copy={async (t) => (copied.push(t), {where: 'the test clipboard', certain: true})}
      {...props}
    />,
  )
  live.push(app)
  const frame = (): string => app.lastFrame() ?? ''
  const until = async (ok: () => boolean, what: string, ms: number): Promise<string> => {
    const end = Date.now() + ms
    while (!ok()) {
      if (Date.now() > end) throw new Error(`${what} within ${ms} ms; screen:\n${frame()}`)
      await new Promise((r) => setTimeout(r, 10))
    }
    return frame()
  }
  const has = (t: string | RegExp): boolean => (typeof t === 'string' ? frame().includes(t) : t.test(frame()))
  return {
    raw: (k: string) => app.stdin.write(k),
    frame,
    opened,
    copied,
    // One key per write, with a turn of the event loop between, as a person types.
    press: async (...keys) => {
      for (const k of keys) {
        app.stdin.write(k)
        await new Promise((r) => setTimeout(r, 15))
      }
    },
    type: async (text) => {
      for (const ch of text) {
        app.stdin.write(ch)
        await new Promise((r) => setTimeout(r, 5))
      }
    },
    waitFor: (t, ms = 5000) => until(() => has(t), `expected ${String(t)} on screen`, ms),
    waitGone: (t, ms = 5000) => until(() => !has(t), `expected ${String(t)} to leave the screen`, ms),
  }
}

/** The selected row of the list, starting with this title. */
function row(title: string): RegExp {
  return new RegExp(`^› ${title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 'm')
}

/** The line of the list that is selected (marked with ›). */
function selectedRow(frame: string): string {
  return frame.split('\n').find((l) => l.startsWith('› ')) ?? ''
}

/** An entry at `full` as the API serves it, or the status of the answer when there is none. */
interface Served {
  status?: string
  status_code?: number
  scope?: string
  branches?: {title: string; scope: string}[]
  comments?: {type: string; body: string}[]
  resolution?: {note: string | null}
}

async function entry(id: string): Promise<Served> {
  const r = await d.request('GET', `/knowledge/${id}`, {query: {detail: 'full'}})
  return r.status === 200 ? r.body : {status_code: r.status}
}

describe('kb browse: finding', () => {
  it('an empty box lists the latest entries; typing filters the list (debounced, stale answers dropped)', async () => {
    const u = ui()
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
    const u = ui({rows: 24, columns: 80})
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
    const u = ui({query: 'Fully detailed'})
    await u.waitFor(row('Fully detailed entry'))
    await u.press(KEY.enter)
    await u.waitFor('Line 1 of the body.')
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
    const u = ui({query: 'private note'})
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
    const wide = ui({columns: 140, rows: 30, query: 'Port 7411'})
    const f = await wide.waitFor(/^› Port 7411 already in use.*│ Port 7411 already in use/m)
    expect(f).toContain('https://example.com/port')
    const bad = ui({key: 'kb_not_a_real_key'})
    const err = await bad.waitFor('Could not load entries')
    expect(err.replace(/\n/g, '')).toContain('kb auth login --web')
    expect(err).not.toMatch(/at .*\.js:\d+/)
    const down = httpClient({
      baseUrl: 'http://127.0.0.1:9/api/v1',
      unreachableHint: 'run `kb daemon start` or check --base-url',
      serverLabel: 'kb daemon',
    })
    const u = render(<BrowseApp client={down} columns={100} rows={30} openUrl={async () => true} copy={async () => ''} />)
    live.push(u)
    const end = Date.now() + 5000
    while (!(u.lastFrame() ?? '').includes('not reachable') && Date.now() < end) await new Promise((r) => setTimeout(r, 10))
    expect((u.lastFrame() ?? '').replace(/\n/g, '')).toContain('kb daemon start')
  })
})

describe('kb browse: timing and the machine', () => {
  it('keys typed faster than the screen redraws all count (one write after another, no pause)', async () => {
    const u = ui({query: 'Port 7411'})
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
      const app = render(<BrowseApp client={client} columns={100} rows={30} openUrl={async () => true} copy={async () => ''} />)
      live.push(app)
      const until = async (ok: () => boolean): Promise<void> => {
        const end = Date.now() + 5000
        while (!ok() && Date.now() < end) await new Promise((r) => setTimeout(r, 5))
        frames.push(app.lastFrame() ?? '')
      }
      // The listing is fast: it never shows the indicator.
      await until(() => (app.lastFrame() ?? '').includes('Filler entry number 14'))
      expect(app.frames.some((f) => f.includes('Loading…'))).toBe(false)
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

describe('kb browse: actions', () => {
  it('r resolves with a note; on an entry of someone else it shows forbidden', async () => {
    const e = await add('Resolve me please')
    const u = ui({query: 'Resolve me please'})
    await u.waitFor(row('Resolve me please'))
    await u.press('r')
    await u.waitFor('Note (optional)')
    await u.type('pinned the version')
    await u.press(KEY.enter)
    await u.waitFor('Resolved "Resolve me please"')
    await u.waitFor(/^› Resolve me please\s+resolved/m)
    const after = await entry(e.id)
    expect(after.status).toBe('resolved')
    expect(after.resolution!.note).toBe('pinned the version')

    const theirs = ui({query: 'Resolve me also', key: other})
    await add('Resolve me also')
    await theirs.waitFor(row('Resolve me also'))
    await theirs.press('r', KEY.enter)
    await theirs.waitFor('only the author')
    expect((await entry((await d.request('GET', '/search', {query: {q: 'Resolve me also'}})).body.items[0].id)).status).toBe('open')
  })

  it('c comments with a chosen type; an empty comment is refused; a deleted entry gives not found', async () => {
    const e = await add('Comment target')
    const u = ui({query: 'Comment target'})
    await u.waitFor(row('Comment target'))
    await u.press('c')
    await u.waitFor('[note]')
    await u.press(KEY.enter)
    await u.waitFor('A comment needs text')
    await u.press(KEY.tab, KEY.tab)
    await u.waitFor('[correction]')
    await u.type('It is port 7412')
    await u.press(KEY.enter)
    await u.waitFor('Commented on "Comment target" (correction)')
    const after = await entry(e.id)
    expect(after.comments!.map((c) => [c.type, c.body])).toEqual([['correction', 'It is port 7412']])
    // Error path: the entry goes away behind the UI's back.
    expect((await d.request('DELETE', `/knowledge/${e.id}`)).status).toBe(204)
    await u.press('c')
    await u.type('too late')
    await u.press(KEY.enter)
    await u.waitFor(/knowledge entry \S+ does not exist — it may have been deleted/)
    await u.waitFor('No entries match')
  })

  it('f forks with a title (and Esc cancels); forking a deleted entry shows the error', async () => {
    const e = await add('Fork source entry')
    const u = ui({query: 'Fork source'})
    await u.waitFor(row('Fork source entry'))
    await u.press('f')
    await u.waitFor('Fork "Fork source entry"')
    await u.press(KEY.esc)
    await u.waitFor('Cancelled')
    expect((await entry(e.id)).branches).toEqual([])
    await u.press('f')
    await u.type('Fork source on Windows')
    await u.press(KEY.enter)
    await u.waitFor(/Forked "Fork source entry" → \S+ "Fork source on Windows"/)
    const branches = (await entry(e.id)).branches
    expect(branches!.map((b) => [b.title, b.scope])).toEqual([['Fork source on Windows', 'private']])
    await u.waitFor('Fork source on Windows')

    const gone = await add('Fork source vanished')
    const v = ui({query: 'Fork source vanished'})
    await v.waitFor(row('Fork source vanished'))
    await d.request('DELETE', `/knowledge/${gone.id}`)
    await v.press('f', KEY.enter)
    await v.waitFor(/knowledge entry \S+ does not exist — it may have been deleted/)
  })

  it('p publishes to a scope the server accepts; a global entry has none', async () => {
    const e = await add('Publish candidate', {scope: 'private'})
    const u = ui({query: 'Publish candidate'})
    await u.waitFor(row('Publish candidate'))
    await u.press('p')
    await u.waitFor('Publish "Publish candidate"')
    // No project: global is the only wider scope the server takes (project would be a 409).
    const picker = await u.waitFor(/^to: +global\s*$/m)
    expect(picker).not.toMatch(/^to:.*project/m)
    await u.press(KEY.tab, KEY.enter)
    await u.waitFor('Published "Publish candidate" to global')
    expect((await entry(e.id)).scope).toBe('global')
    await u.waitFor(/^› Publish candidate\s+open\s+global/m)
    await u.press('p')
    await u.waitFor('"Publish candidate" is already global: there is no wider scope')
    expect((await entry(e.id)).scope).toBe('global')
  })

  it('d deletes after y; n keeps it; deleting twice shows not found', async () => {
    const e = await add('Delete candidate')
    const u = ui({query: 'Delete candidate'})
    await u.waitFor(row('Delete candidate'))
    await u.press('d')
    await u.waitFor('Delete "Delete candidate"')
    await u.waitFor(`id ${e.id} · global · open · by owner`)
    await u.waitFor('Delete it? y/N')
    await u.press('n')
    await u.waitFor('Not deleted')
    expect((await entry(e.id)).status).toBe('open')
    await u.press('d', 'y')
    await u.waitFor('Deleted "Delete candidate"')
    expect((await entry(e.id)).status_code).toBe(404)
    await u.waitGone('Delete candidate  ')

    const again = await add('Delete twice')
    const v = ui({query: 'Delete twice'})
    await v.waitFor(row('Delete twice'))
    await d.request('DELETE', `/knowledge/${again.id}`)
    await v.press('d', 'y')
    await v.waitFor(/knowledge entry \S+ does not exist — it may have been deleted/)
  })

  it('o opens the url (or says there is none), y copies the id, and actions work from the full view', async () => {
    const withUrl = await add('Has a link', {url: 'https://example.com/fix'})
    const u = ui({query: 'Has a link'})
    await u.waitFor(row('Has a link'))
    await u.press('o')
    await u.waitFor('Opened https://example.com/fix')
    expect(u.opened).toEqual(['https://example.com/fix'])
    await u.press('y')
    await u.waitFor(`Copied ${withUrl.id} to the test clipboard`)
    expect(u.copied).toEqual([withUrl.id])

    await add('Has no link at all')
    const v = ui({query: 'Has no link at all'})
    await v.waitFor(row('Has no link at all'))
    await v.press('o')
    await v.waitFor('has no url')
    expect(v.opened).toEqual([])
    // From the full view: r resolves the open entry and the view reloads it.
    await v.press(KEY.enter)
    await v.waitFor('Body of Has no link at all.')
    await v.press('r', KEY.enter)
    await v.waitFor('Resolved "Has no link at all"')
    await v.waitFor(/^status\s+resolved/m)
  })
})
