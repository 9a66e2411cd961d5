/**
 * The actions of `kb browse` through its Ink component (ink-testing-library), the client talking real HTTP
 * to an in-process daemon: each action's happy and error path, checked through the API afterwards.
 */
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'
import {newPrincipal, startInProcessDaemon, type TestDaemon} from '../../helpers/daemon.js'
import {entry, KEY, row, ui, unmountAll} from './ink-ui.js'
import {shortId} from '../../../src/shared/short-id.js'

let d: TestDaemon
let other: string

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
})

afterAll(async () => {
  await d?.stop()
})

afterEach(unmountAll)

describe('kb browse: actions', () => {
  it('r resolves with a note; on an entry of someone else it shows forbidden', async () => {
    const e = await add('Resolve me please')
    const u = ui(d, {query: 'Resolve me please'})
    await u.waitFor(row('Resolve me please'))
    await u.press('r')
    await u.waitFor('Note (optional)')
    await u.type('pinned the version')
    await u.press(KEY.enter)
    await u.waitFor('Resolved "Resolve me please"')
    await u.waitFor(/^› Resolve me please\s+resolved/m)
    const after = await entry(d, e.id)
    expect(after.status).toBe('resolved')
    expect(after.resolution!.note).toBe('pinned the version')

    const theirs = ui(d, {query: 'Resolve me also', key: other})
    await add('Resolve me also')
    await theirs.waitFor(row('Resolve me also'))
    await theirs.press('r', KEY.enter)
    await theirs.waitFor('only the author')
    expect((await entry(d, (await d.request('GET', '/search', {query: {q: 'Resolve me also'}})).body.items[0].id)).status).toBe('open')
  })

  it('c comments with a chosen type; an empty comment is refused; a deleted entry gives not found', async () => {
    const e = await add('Comment target')
    const u = ui(d, {query: 'Comment target'})
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
    const after = await entry(d, e.id)
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
    const u = ui(d, {query: 'Fork source'})
    await u.waitFor(row('Fork source entry'))
    await u.press('f')
    await u.waitFor('Fork "Fork source entry"')
    await u.press(KEY.esc)
    await u.waitFor('Cancelled')
    expect((await entry(d, e.id)).branches).toEqual([])
    await u.press('f')
    await u.type('Fork source on Windows')
    await u.press(KEY.enter)
    await u.waitFor(/Forked "Fork source entry" → \S+ "Fork source on Windows"/)
    const branches = (await entry(d, e.id)).branches
    expect(branches!.map((b) => [b.title, b.scope])).toEqual([['Fork source on Windows', 'private']])
    await u.waitFor('Fork source on Windows')

    const gone = await add('Fork source vanished')
    const v = ui(d, {query: 'Fork source vanished'})
    await v.waitFor(row('Fork source vanished'))
    await d.request('DELETE', `/knowledge/${gone.id}`)
    await v.press('f', KEY.enter)
    await v.waitFor(/knowledge entry \S+ does not exist — it may have been deleted/)
  })

  it('p publishes to a scope the server accepts; a global entry has none', async () => {
    const e = await add('Publish candidate', {scope: 'private'})
    const u = ui(d, {query: 'Publish candidate'})
    await u.waitFor(row('Publish candidate'))
    await u.press('p')
    await u.waitFor('Publish "Publish candidate"')
    // No project: global is the only wider scope the server takes (project would be a 409).
    const picker = await u.waitFor(/^to: +global\s*$/m)
    expect(picker).not.toMatch(/^to:.*project/m)
    await u.press(KEY.tab, KEY.enter)
    await u.waitFor('Published "Publish candidate" to global')
    expect((await entry(d, e.id)).scope).toBe('global')
    await u.waitFor(/^› Publish candidate\s+open\s+global/m)
    await u.press('p')
    await u.waitFor('"Publish candidate" is already global: there is no wider scope')
    expect((await entry(d, e.id)).scope).toBe('global')
  })

  it('d deletes after y; n keeps it; deleting twice shows not found', async () => {
    const e = await add('Delete candidate')
    const u = ui(d, {query: 'Delete candidate'})
    await u.waitFor(row('Delete candidate'))
    await u.press('d')
    await u.waitFor('Delete "Delete candidate"')
    await u.waitFor(`id ${shortId(e.id)} · global · open · by owner`)
    await u.waitFor('Delete it? y/N')
    await u.press('n')
    await u.waitFor('Not deleted')
    expect((await entry(d, e.id)).status).toBe('open')
    await u.press('d', 'y')
    await u.waitFor('Deleted "Delete candidate"')
    expect((await entry(d, e.id)).status_code).toBe(404)
    await u.waitGone('Delete candidate  ')

    const again = await add('Delete twice')
    const v = ui(d, {query: 'Delete twice'})
    await v.waitFor(row('Delete twice'))
    await d.request('DELETE', `/knowledge/${again.id}`)
    await v.press('d', 'y')
    await v.waitFor(/knowledge entry \S+ does not exist — it may have been deleted/)
  })

  it('o opens the url (or says there is none), y copies the id, and actions work from the full view', async () => {
    const withUrl = await add('Has a link', {url: 'https://example.com/fix'})
    const u = ui(d, {query: 'Has a link'})
    await u.waitFor(row('Has a link'))
    await u.press('o')
    await u.waitFor('Opened https://example.com/fix')
    expect(u.opened).toEqual(['https://example.com/fix'])
    await u.press('y')
    await u.waitFor(`Copied ${withUrl.id} to the test clipboard`)
    expect(u.copied).toEqual([withUrl.id])

    await add('Has no link at all')
    const v = ui(d, {query: 'Has no link at all'})
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
