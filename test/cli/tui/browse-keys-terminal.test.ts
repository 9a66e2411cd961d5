/**
 * `kb browse` keys end to end in tmux: keys sent 80 ms apart while a slow search is on its way act on
 * the entry that search shows, never on the one on screen before it; Esc backs out of every place and
 * never quits; q quits from every place but the text fields (where it is a letter); Ctrl-C quits from
 * every place.
 */
import {createServer, request as httpRequest, type Server} from 'node:http'
import {join} from 'node:path'
import {afterAll, beforeAll, expect, it} from 'vitest'
import {KEY_LINES} from '../../../src/cli/tui/keymap.js'
import {startChildDaemon, type ChildDaemon} from '../../helpers/daemon.js'
import {cleanup, makeUser, type KbEnv} from '../helpers.js'
import {requireSystem} from '../../helpers/system.js'
import {browseCommand, exitsIn, sleep, Tmux, until, type Pane} from './tmux.js'
import {shortId} from '../../../src/shared/short-id.js'

const system = requireSystem('tmux')

/**
 * How late the proxy in front of the daemon answers a search: long enough that the keys sent after the query reach
 * the TUI while its search is still out even on a loaded CI machine (at 800 ms one run missed the window).
 */
const SEARCH_DELAY_MS = 2_000

let d: ChildDaemon
let user: KbEnv
let tmux: Tmux
let slow: Server
const ids: Record<string, string> = {}

beforeAll(async () => {
  user = makeUser()
  d = await startChildDaemon({dataDir: user.dataDir})
  const add = async (title: string): Promise<void> => {
    const r = await d.request('POST', '/knowledge', {body: {title, body: `Body of ${title}.`, scope: 'private'}})
    expect(r.status).toBe(201)
    ids[title] = r.body.id
  }
  await add('Kafka consumer lag grows after deploy')
  await add('Target entry for the keys')
  // Newest: selected when the list opens.
  await add('macOS: xcrun: error: invalid active developer path')
  // A real HTTP hop that answers searches late (a slow link or a busy server).
  slow = createServer((req, res) => {
    const target = new URL(d.url)
    setTimeout(
      () => {
        const fwd = httpRequest(
          {host: target.hostname, port: target.port, path: req.url, method: req.method, headers: {...req.headers, host: target.host}},
          (r) => {
            res.writeHead(r.statusCode!, r.headers)
            r.pipe(res)
          },
        )
        req.pipe(fwd)
      },
      req.url!.includes('/search') ? SEARCH_DELAY_MS : 0,
    )
  })
  await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r))
  const base = `http://127.0.0.1:${(slow.address() as {port: number}).port}/api/v1`
  // The owner's key, sent through a proxy: the CLI sends the owner.key of its own data directory only to
  // the daemon that proves it owns that directory, so this CLI has a data directory of its own.
  const env = {...user.env, KB_DATA_DIR: join(user.root, 'cli-data'), KB_BASE_URL: base, KB_API_KEY: d.ownerKey}
  tmux = new Tmux(user.root, {...env, KB_NO_AUTOSTART: '1', TERM: 'xterm-256color'})
  if (system.available) await tmux.start()
})

afterAll(async () => {
  if (system.available) await tmux?.stop()
  await new Promise((r) => slow?.close(r))
  await d?.stop()
  if (user) await cleanup(user)
})

system.describe('kb browse keys in a real terminal (tmux)', () => {
  it('keys sent 80 ms apart during a slow search act on the entry it shows, never on the one before', async () => {
    const exits = join(user.root, 'slow.exits')
    const p = await tmux.pane('slow', browseCommand([], exits))
    await p.waitFor(/^› macOS: xcrun: error/m)
    await p.text('kafka lag')
    await sleep(80)
    await p.keys('Enter')
    await sleep(80)
    await p.keys('d')
    // Watch every screen until the delete prompt shows: it must name the Kafka entry, and no screen may
    // ever ask to delete the entry that was selected before the search.
    const screens: string[] = []
    const asked = await until(
      async () => {
        const s = await p.screen()
        screens.push(s)
        return s
      },
      (s) => s.includes('Delete it? y/N'),
      'the delete prompt',
    )
    expect(screens.some((s) => s.includes('Waiting for the results on screen to settle: d will apply to them'))).toBe(true)
    expect(screens.some((s) => s.includes('Delete "macOS'))).toBe(false)
    expect(asked).toContain('Delete "Kafka consumer lag grows after deploy"')
    expect(asked).toContain(`id ${shortId(ids['Kafka consumer lag grows after deploy']!)}`)
    expect(asked).toMatch(/^› Kafka consumer lag grows after deploy/m)
    await p.keys('y')
    await p.waitFor('Deleted "Kafka consumer lag grows after deploy"')
    expect((await d.request('GET', `/knowledge/${ids['Kafka consumer lag grows after deploy']}`)).status).toBe(404)
    expect((await d.request('GET', `/knowledge/${ids['macOS: xcrun: error: invalid active developer path']}`)).status).toBe(200)
    await p.keys('C-c')
    await until(
      () => exitsIn(exits),
      (e) => e.length === 1,
      'kb browse should exit after Ctrl-C',
    )
  })

  /** Places, how to reach each from the results, what shows there, and whether q is a letter there. */
  const PLACES: {name: string; keys: string[]; shows: string | RegExp; text?: boolean}[] = [
    {name: 'search box', keys: ['/'], shows: KEY_LINES.search, text: true},
    {name: 'results', keys: [], shows: KEY_LINES.list},
    {name: 'full view', keys: ['Enter'], shows: /^id +\S+ {2}\(\S+\)$/m},
    {name: 'help', keys: ['?'], shows: KEY_LINES.help},
    {name: 'resolve prompt', keys: ['r'], shows: 'Note (optional)', text: true},
    {name: 'comment prompt', keys: ['c'], shows: 'Comment [note] on', text: true},
    {name: 'fork prompt', keys: ['f'], shows: 'Fork "Target entry for the keys"', text: true},
    {name: 'publish prompt', keys: ['p'], shows: /^to: +global/m},
    {name: 'delete prompt', keys: ['d'], shows: 'Delete it? y/N'},
    {name: 'verify prompt', keys: ['V'], shows: 'Verify "Target entry for the keys"', text: true},
    {name: 'flag prompt', keys: ['F'], shows: 'Flag [stale] "Target entry for the keys"', text: true},
  ]

  /** A pane that runs `kb browse "Target entry"` again each time it exits, appending the exit codes. */
  async function looping(name: string): Promise<{p: Pane; exits: string; ready: () => Promise<void>}> {
    const exits = join(user.root, `${name}.exits`)
    // Straight to the daemon: these tests are about keys, not a slow link.
    const p = await tmux.pane(name, `while :; do ${browseCommand(['Target entry'], exits, {KB_BASE_URL: d.url})}; clear; done`)
    const ready = async (): Promise<void> => {
      await p.waitFor(/^› Target entry for the keys/m)
      await p.waitFor(KEY_LINES.list)
    }
    return {p, exits, ready}
  }

  it('Esc backs out of every place and never quits; q is a letter in the text fields', async () => {
    const {p, exits, ready} = await looping('esc')
    await ready()
    for (const place of PLACES.filter((x) => x.name !== 'results')) {
      await p.keys(...place.keys)
      await p.waitFor(place.shows)
      if (place.text) {
        await p.keys('q')
        await p.waitFor(place.name === 'search box' ? 'Search › Target entryq' : /: q\s*$/m)
      }
      await p.keys('Escape')
      await p.waitFor(KEY_LINES.list)
      await p.waitFor(/^› Target entry for the keys/m)
    }
    // In the results: the first Esc clears the query, the next ones only say how to quit.
    await p.keys('Escape')
    await p.waitFor('Query cleared (Esc backs out one step; q quits)')
    await p.waitFor(/status all {2}\d+ entries/)
    await p.keys('Escape', 'Escape')
    await p.waitFor('Nothing to go back to; q or Ctrl-C quits')
    expect(exitsIn(exits)).toEqual([])
    await p.keys('C-c')
    await until(
      () => exitsIn(exits),
      (e) => e.length === 1,
      'kb browse should exit after Ctrl-C',
    )
  }, 120_000)

  it('Ctrl-C quits from every place, text fields and prompts included', async () => {
    const {p, exits, ready} = await looping('ctrlc')
    for (const [i, place] of PLACES.entries()) {
      await ready()
      await p.keys(...place.keys)
      await p.waitFor(place.shows)
      await p.keys('C-c')
      const codes = await until(
        () => exitsIn(exits),
        (e) => e.length === i + 1,
        `Ctrl-C in the ${place.name} should quit`,
      )
      expect(codes.at(-1), place.name).toBe('0')
    }
  }, 180_000)

  it('q quits from every place that is not a text field', async () => {
    const {p, exits, ready} = await looping('q')
    const places = PLACES.filter((x) => !x.text)
    for (const [i, place] of places.entries()) {
      await ready()
      await p.keys(...place.keys)
      await p.waitFor(place.shows)
      await p.keys('q')
      const codes = await until(
        () => exitsIn(exits),
        (e) => e.length === i + 1,
        `q in the ${place.name} should quit`,
      )
      expect(codes.at(-1), place.name).toBe('0')
    }
  }, 120_000)
})
