/**
 * Freshness in `kb browse` through its Ink component (ink-testing-library), the client talking real HTTP to
 * an in-process daemon (docs/tui.md, "Freshness"): the stale badge and reasons of an entry whose anchor
 * changed, V verifying, F flagging with a chosen reason and withdrawing, each checked through the API.
 */
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'
import {newPrincipal, startInProcessDaemon, type TestDaemon} from '../../helpers/daemon.js'
import {KEY, row, selectedRow, ui, unmountAll} from './ink-ui.js'

let d: TestDaemon
let bob: string

async function add(title: string, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await d.request('POST', '/knowledge', {body: {title, body: `Body of ${title}.`, scope: 'global', ...extra}})
  expect(res.status, res.text).toBe(201)
  return res.body.id
}
const served = async (id: string): Promise<Record<string, any>> =>
  (await d.request('GET', `/knowledge/${id}`, {query: {detail: 'full'}})).body

beforeAll(async () => {
  d = await startInProcessDaemon()
  bob = await newPrincipal(d, 'bob')
})

afterAll(async () => {
  await d?.stop()
})

afterEach(unmountAll)

describe('kb browse: freshness', () => {
  it('a changed anchor shows as a stale badge, its reason in the detail pane, and the Freshness and Anchors sections', async () => {
    const id = await add('Pool exhausted under load', {anchors: [{path: 'src/db/pool.ts', lines: '40-62'}]})
    await add('Pool sizing is fine')
    const checked = await d.request('POST', `/knowledge/${id}/anchors/check`, {
      body: {commit: 'a1b2c3d4', results: [{path: 'src/db/pool.ts', lines: '40-62', state: 'changed'}]},
    })
    expect(checked.status, checked.text).toBe(200)
    // A stale entry ranks below an equally relevant fresh one (docs/search.md), so the fresh one comes first.
    const u = ui(d, {query: 'pool'})
    const screen = await u.waitFor(row('Pool sizing is fine'))
    expect(selectedRow(screen)).not.toContain('stale')
    expect(screen.split('\n').find((l) => l.includes('Pool exhausted under load'))).toMatch(/Pool exhausted under load\s+stale\s+open/)
    await u.press('j')
    await u.waitFor(row('Pool exhausted under load'))
    await u.waitFor('stale: anchor src/db/pool.ts:40-62 changed in a1b2c3d')
    await u.press(KEY.enter)
    await u.waitFor(/^freshness +stale \(1 reason below\)/m)
    await u.press('G')
    await u.waitFor(/^Anchors \(1\)$/m)
    await u.waitFor(/^changed src\/db\/pool\.ts:40-62 · checked/m)
  })

  it('V verifies with a note; F flags with the reason Tab picked; F then Shift-Tab withdraws', async () => {
    const id = await add('Heap limit for the build')
    const u = ui(d, {query: 'Heap limit', key: bob})
    await u.waitFor(row('Heap limit for the build'))
    await u.press('F')
    await u.waitFor('Flag [stale] "Heap limit for the build"')
    await u.press(KEY.tab)
    await u.waitFor('Flag [incorrect]')
    await u.type('still OOM')
    await u.press(KEY.enter)
    await u.waitFor('Flagged "Heap limit for the build" as incorrect')
    expect((await served(id)).flags).toEqual({stale: 0, incorrect: 1, duplicate: 0, obsolete: 0})
    await u.waitFor(/^› Heap limit for the build\s+stale/m)

    await u.press('F', '\u001B[Z')
    await u.waitFor('Withdraw your flag on "Heap limit for the build"')
    await u.press(KEY.enter)
    await u.waitFor('Withdrew your flag on "Heap limit for the build"')
    expect((await served(id)).flags.incorrect).toBe(0)

    await u.press('V')
    await u.waitFor('Verify "Heap limit for the build"')
    await u.type('worked with 4096')
    await u.press(KEY.enter)
    await u.waitFor('Verified "Heap limit for the build"')
    const after = await served(id)
    expect(after.freshness).toMatchObject({state: 'fresh', verified_by: {name: 'bob'}})
    expect(after.comments.map((c: {body: string}) => c.body)).toContainEqual(expect.stringContaining('worked with 4096'))
  })
})
