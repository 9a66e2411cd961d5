/**
 * `kb browse` end to end in a real terminal: the built binary in tmux panes with their own HOME and XDG
 * folders, talking to a child daemon. A query, a resolve through the API; a resize and NO_COLOR; the
 * alternate screen (the shell's scrollback survives, no screen clears per key; given back on a signal; drawn
 * with CI set); an entry full of escape
 * sequences reaching the terminal as plain text; 80×24 showing every key; copy into tmux's buffer; a
 * three-line paste arriving whole. Also: without a terminal, `kb browse` exits 2.
 */
import {execFile} from 'node:child_process'
import {join} from 'node:path'
import {promisify} from 'node:util'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {helpSections, KEY_LINES} from '../../../src/cli/tui/keymap.js'
import {width} from '../../../src/cli/tui/text.js'
import {startChildDaemon, type ChildDaemon} from '../../helpers/daemon.js'
import {cleanup, kb, makeUser, type KbEnv} from '../helpers.js'
import {requireSystem} from '../../helpers/system.js'
import {browseCommand, exitsIn, Tmux, until} from './tmux.js'

const system = requireSystem('tmux')
const exec = promisify(execFile)

let d: ChildDaemon
let user: KbEnv
let tmux: Tmux
const ids: Record<string, string> = {}

const HOSTILE_TITLE =
  'Evil \u001B]52;c;aGFja2Vk\u0007clipboard \u001B]8;;https://evil.example\u0007link\u001B]8;;\u0007 \u001B[2J\u001B[3Jwipe'
const HOSTILE_BODY =
  'Before \u001B[2J\u001B[H after.\nA link \u001B]8;;https://evil.example\u001B\\here\u001B]8;;\u001B\\ and a clipboard \u001B]52;c;aGFja2Vk\u001B\\ write.'

beforeAll(async () => {
  user = makeUser()
  d = await startChildDaemon({dataDir: user.dataDir})
  const add = async (title: string, body: string, extra: Record<string, unknown> = {}): Promise<void> => {
    const r = await d.request('POST', '/knowledge', {body: {title, body, scope: 'global', tags: ['daemon'], ...extra}})
    expect(r.status).toBe(201)
    ids[title] = r.body.id
  }
  await add('Port 7411 already in use', 'Another kb daemon holds the port; `kb daemon stop` it or pass --port.')
  await add('SQLite database is locked', 'Two processes opened the store; only the daemon may.')
  await add('Flaky test on CI runners', 'The runner has two cores; keep each test file under 20 s.')
  await add('Paste target', 'Comments pasted here arrive whole.')
  // Found by `sqlite` through its tag only, so it ranks below the entry with sqlite in its title.
  await add('データベースがロック 🔒 e\u0301', 'Wide characters, an emoji and a combining mark in the title.', {tags: ['sqlite']})
  await add(HOSTILE_TITLE, HOSTILE_BODY)
  const r = await d.request('POST', `/knowledge/${ids[HOSTILE_TITLE]}/comments`, {
    body: {body: 'Comment \u001B]52;c;aGFja2Vk\u0007 \u001B[2J done', type: 'note'},
  })
  expect(r.status).toBe(201)
  tmux = new Tmux(user.root, {...user.env, KB_BASE_URL: d.url, KB_API_KEY: d.ownerKey, KB_NO_AUTOSTART: '1', TERM: 'xterm-256color'})
  if (system.available) await tmux.start()
})

afterAll(async () => {
  if (system.available) await tmux?.stop()
  await d?.stop()
  if (user) await cleanup(user)
})

const exitsFile = (name: string): string => join(user.root, `${name}.exits`)

system.describe('kb browse in a real terminal (tmux)', () => {
  it('types a query, sees the entry, resolves it with r, leaves with q; the API confirms', async () => {
    const p = await tmux.pane('resolve', browseCommand([], exitsFile('resolve')))
    await p.waitFor('Search ›')
    await p.waitFor('6 entries')
    await p.text('port in use')
    const found = await p.waitFor(/^› Port 7411 already in use/m)
    expect(found).toContain('Another kb daemon holds the port')
    expect(found).not.toContain('Flaky test on CI runners')
    await p.keys('Tab')
    await p.waitFor(KEY_LINES.list)
    await p.keys('r')
    await p.waitFor('Note (optional)')
    await p.text('stopped the stale daemon')
    await p.keys('Enter')
    await p.waitFor('Resolved "Port 7411 already in use"')
    const resolved = await p.waitFor(/^› Port 7411 already in use\s+#daemon\s+resolved/m)
    for (const l of resolved.split('\n')) expect(l.length).toBeLessThanOrEqual(100)
    await p.keys('q')
    await until(
      () => exitsIn(exitsFile('resolve')),
      (e) => e.length === 1,
      'kb browse should exit after q',
    )
    expect(exitsIn(exitsFile('resolve'))).toEqual(['0'])
    const hit = (await d.request('GET', `/knowledge/${ids['Port 7411 already in use']}`, {query: {detail: 'full'}})).body
    expect(hit.status).toBe('resolved')
    expect(hit.resolution.note).toBe('stopped the stale daemon')
  })

  it('follows a resize to a narrow terminal and back, honours NO_COLOR; Esc does not quit, q does', async () => {
    const p = await tmux.pane('resize', browseCommand(['sqlite'], exitsFile('resize'), {NO_COLOR: '1'}), {columns: 140, rows: 30})
    await p.waitFor(/^› SQLite database is locked.*│ SQLite database is locked/m)
    await tmux.run('resize-window', '-t', 'resize', '-x', '80', '-y', '24')
    const narrow = await p.waitFor(/^─+\nSQLite database is locked$/m)
    for (const l of narrow.split('\n')) expect(width(l)).toBeLessThanOrEqual(80)
    // Rows with CJK, an emoji and a combining mark line up with the others: columns measured as drawn.
    const rows = narrow.split('\n').filter((l) => /^[› ] .* (open|resolved) /.test(l))
    expect(rows.length).toBe(2)
    expect(new Set(rows.map((l) => width(l.slice(0, l.search(/ (open|resolved) /)))))).toEqual(
      new Set([width(rows[0]!.slice(0, rows[0]!.search(/ (open|resolved) /)))]),
    )
    expect(narrow.split('\n').filter((l) => l.startsWith('kb browse'))).toHaveLength(1)
    const colored = await tmux.run('capture-pane', '-p', '-e', '-t', 'resize')
    // No foreground/background colours (SGR 30–38, 40–48, 90–97, 100–107); bold and inverse are not colours.

    const sgr = [...colored.matchAll(/\u001B\[([0-9;]*)m/g)].flatMap((m) => m[1]!.split(';').map(Number))
    expect(sgr.filter((n) => (n >= 30 && n <= 38) || (n >= 40 && n <= 48) || (n >= 90 && n <= 97) || (n >= 100 && n <= 107))).toEqual([])
    expect(colored).toContain('\u001B[7m')
    await tmux.run('resize-window', '-t', 'resize', '-x', '120', '-y', '35')
    await p.waitFor(/^› SQLite database is locked.*│ SQLite database is locked/m)
    await p.keys('Escape', 'Escape')
    await p.waitFor('q or Ctrl-C quits')
    expect(exitsIn(exitsFile('resize'))).toEqual([])
    await p.keys('q')
    await until(
      () => exitsIn(exitsFile('resize')),
      (e) => e.length === 1,
      'kb browse should exit after q',
    )
  })

  it('draws its screen when CI is set in the shell (Ink alone would draw nothing until it exits)', async () => {
    const p = await tmux.pane('ci', browseCommand(['sqlite'], exitsFile('ci'), {CI: 'true', CONTINUOUS_INTEGRATION: '1'}))
    await p.waitFor(/^› SQLite database is locked/m, 8_000)
    await p.keys('j')
    await p.waitFor(/^› データベースがロック/m)
    await p.keys('q')
    await until(
      () => exitsIn(exitsFile('ci')),
      (e) => e.length === 1,
      'kb browse should exit after q',
    )
  })

  it("draws on the alternate screen: the shell's scrollback survives, nothing clears it, escape sequences in entries never reach the terminal", async () => {
    const p = await tmux.pane('screen', `seq 1 300; ${browseCommand(['evil clipboard'], exitsFile('screen'))}; echo after-browse; exec cat`)
    // The hostile entry: selected, in the detail pane, then in full with its comment.
    const listed = await p.waitFor(/^› Evil clipboard link wipe/m)
    expect(await p.display('#{alternate_on}')).toBe('1')
    expect(listed).toContain('Before  after.')
    await p.keys('j', 'k', 'k', '/')
    await p.text('x')
    await p.keys('BSpace', 'Escape', '?', 'j', 'Escape', 'Enter')
    const full = await p.waitFor('Comment   done')
    expect(full).toMatch(/^Evil clipboard link wipe$/m)
    expect(full).toContain('A link here and a clipboard  write.')
    await p.keys('G', 'g', 'Escape')
    await p.waitFor(KEY_LINES.list)
    await p.keys('q')
    await until(
      () => exitsIn(exitsFile('screen')),
      (e) => e.length === 1,
      'kb browse should exit after q',
    )
    await p.waitFor('after-browse')
    expect(await p.display('#{alternate_on}')).toBe('0')
    // The shell's lines are all there, in order, and the UI left nothing behind.
    const history = (await p.history()).split('\n')
    const numbers = history.filter((l) => /^\d+$/.test(l)).map(Number)
    expect(numbers).toEqual(Array.from({length: 300}, (_, i) => i + 1))
    expect(history.join('\n')).not.toContain('kb browse')
    expect(history.join('\n')).not.toContain('Search ›')
    // What kb wrote: the screen cleared once, entering the alternate screen; the scrollback never.
    const raw = p.output()
    expect(raw.split('\u001B[2J')).toHaveLength(2)
    expect(raw).not.toContain('\u001B[3J')
    expect(raw).toContain('\u001B[?1049h')
    expect(raw).toContain('\u001B[?1049l')
    // No OSC 52 (clipboard) nor OSC 8 (link) from the entry, and tmux made no paste buffer of one.
    expect(raw).not.toContain('\u001B]52')
    expect(raw).not.toContain('\u001B]8;')
    expect((await tmux.run('list-buffers')).trim()).toBe('')
  })

  it('killed by a signal, it still gives the shell its screen back (alternate screen and paste mode off)', async () => {
    const p = await tmux.pane('signal', `seq 1 40; ${browseCommand([], exitsFile('signal'))}; echo after-browse; exec cat`)
    await p.waitFor(/^› /m)
    expect(await p.display('#{alternate_on}')).toBe('1')
    const browse = (await exec('pgrep', ['-P', await p.display('#{pane_pid}')])).stdout.trim()
    process.kill(Number(browse), 'SIGTERM')
    await p.waitFor('after-browse')
    expect(exitsIn(exitsFile('signal'))).toEqual(['143'])
    expect(await p.display('#{alternate_on}')).toBe('0')
    const raw = p.output()
    expect(raw.lastIndexOf('\u001B[?2004l')).toBeGreaterThan(raw.lastIndexOf('\u001B[?2004h'))
    expect((await p.history()).split('\n').filter((l) => /^\d+$/.test(l))).toHaveLength(40)
  })

  it('fits 80×24: the key line whole, help that scrolls to every key and returns; y copies into tmux', async () => {
    const p = await tmux.pane('small', browseCommand(['Flaky test'], exitsFile('small')), {columns: 80, rows: 24})
    const first = await p.waitFor(/^› Flaky test on CI runners/m)
    expect(first.split('\n').map((l) => l.trimEnd())).toContain(KEY_LINES.list)
    await p.keys('?')
    let screen = await p.waitFor('↓ more')
    let seen = screen
    // Page through: each page moves the "lines a–b of n" marker, the last one has none.
    for (let i = 0; i < 12 && screen.includes('↓ more'); i++) {
      const marker = /lines \d+–\d+/.exec(screen)![0]
      await p.keys('PageDown')
      screen = await p.waitGone(marker)
      seen += screen
    }
    expect(screen).not.toContain('↓ more')
    for (const sec of helpSections()) {
      expect(seen).toContain(sec.title)
      for (const [keys] of sec.rows) expect(seen, keys).toContain(`  ${keys}`)
    }
    await p.keys('Escape')
    await p.waitFor(KEY_LINES.list)
    await p.keys('y')
    const id = ids['Flaky test on CI runners']!
    await p.waitFor(`Copied ${id} to tmux's paste buffer`)
    expect((await tmux.run('show-buffer')).trim()).toBe(id)
    await p.keys('q')
    await until(
      () => exitsIn(exitsFile('small')),
      (e) => e.length === 1,
      'kb browse should exit after q',
    )
  })

  it('a three-line paste into a comment arrives whole, shown for review before Enter sends it', async () => {
    const p = await tmux.pane('paste', browseCommand(['Paste target'], exitsFile('paste')))
    await p.waitFor(/^› Paste target/m)
    await p.keys('c')
    await p.waitFor('Comment [note] on "Paste target"')
    await p.paste('first line of the paste\nsecond line\nthird line')
    const review = await p.waitFor('3 lines — review, then Enter sends all of them')
    expect(review).toMatch(/^│ first line of the paste$/m)
    expect(review).toMatch(/^│ second line$/m)
    expect(review).toMatch(/^│ third line/m)
    const before = await d.request('GET', `/knowledge/${ids['Paste target']}`, {query: {detail: 'full'}})
    expect(before.body.comments).toEqual([])
    await p.keys('Enter')
    await p.waitFor('Commented on "Paste target" (note)')
    const after = await d.request('GET', `/knowledge/${ids['Paste target']}`, {query: {detail: 'full'}})
    expect(after.body.comments.map((c: {body: string}) => c.body)).toEqual(['first line of the paste\nsecond line\nthird line'])
    await p.keys('q')
    await until(
      () => exitsIn(exitsFile('paste')),
      (e) => e.length === 1,
      'kb browse should exit after q',
    )
  })
})

describe('kb browse without a terminal', () => {
  it('exits 2 and suggests kb search', async () => {
    const r = await kb(user, ['browse'], {env: {KB_BASE_URL: d.url, KB_API_KEY: d.ownerKey}})
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('kb search')
    expect(r.stdout).toBe('')
  })
})
