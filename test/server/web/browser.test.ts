/**
 * The web view in a real browser (chromium through playwright-core), on both drivers: sign-in by key and by one-time
 * link, search, keyboard use, hostile entries inert, the CSP header and axe-core on every page, 360 px wide, sign-out.
 */
import {readFileSync} from 'node:fs'
import type {Browser} from 'playwright-core'
import {afterAll, beforeAll, expect, it} from 'vitest'
import {startInProcessDaemon, type TestDaemon} from '../../helpers/daemon.js'
import {requireSystem} from '../../helpers/system.js'
import {checkPage, launch, screenshot, watchedPage, type Watched} from './browser-kit.js'
import {HOSTILE, webRoot} from './support.js'

const system = requireSystem('chromium')

// The functions given to page.evaluate run in the page: the few browser globals they use, declared for this module
// only (the tests are type-checked with Node's globals, which is where everything else here runs).
declare const document: {
  activeElement: {id: string; textContent: string | null} | null
  querySelector(selector: string): {textContent: string | null} | null
  querySelectorAll(selector: string): ArrayLike<{value: string}>
  documentElement: {scrollWidth: number}
  body: object
}
declare function getComputedStyle(element: object): {backgroundColor: string}

let d: TestDaemon
let browser: Browser
let root: string
let entryId: string
let hostileId: string

beforeAll(async () => {
  const [dr, br] = await Promise.allSettled([startInProcessDaemon(), launch(system.paths.chromium!)])
  if (dr.status === 'fulfilled') d = dr.value
  if (br.status === 'fulfilled') browser = br.value
  for (const r of [dr, br]) if (r.status === 'rejected') throw r.reason
  root = webRoot(d)
  const project = (await d.request('POST', '/projects/join', {body: {remote: 'github.com/acme/api'}})).body.project
  const make = async (body: Record<string, unknown>): Promise<string> => {
    const res = await d.request('POST', '/knowledge', {body})
    expect(res.status, res.text).toBe(201)
    return res.body.id
  }
  entryId = await make({
    title: 'Port 7411 already in use',
    body: '## Why\n\nAnother daemon holds the port.\n\n```sh\nlsof -i :7411\n```\n\nThen stop it with `kb daemon stop`.',
    scope: 'project',
    project_id: project.id,
    tags: ['ports', 'daemon'],
    anchors: [{path: 'server/daemon.ts', lines: '40-62', commit: 'b'.repeat(40)}],
  })
  for (let i = 0; i < 3; i++) await make({title: `Port note ${i}`, body: `Ports are shared (note ${i}).`, scope: 'private'})
  hostileId = await make({title: HOSTILE.title, body: HOSTILE.body, tags: [HOSTILE.tag], scope: 'private'})
  await d.request('POST', `/knowledge/${hostileId}/comments`, {body: {body: HOSTILE.comment}})
})
afterAll(async () => {
  await browser?.close()
  await d?.stop()
})

async function withPage(fn: (w: Watched) => Promise<void>, options: {width?: number} = {}): Promise<void> {
  const w = await watchedPage(browser, options)
  try {
    await fn(w)
    expect(w.violations, 'CSP violations').toEqual([])
    expect(w.errors, 'page errors').toEqual([])
    expect(w.dialogs, 'dialogs').toEqual([])
  } finally {
    await w.context.close()
  }
}

async function signInByKey(w: Watched, key: string, path: string): Promise<void> {
  const res = await w.page.goto(`${root}${path}`)
  expect(w.page.url()).toContain('/signin?next=')
  await checkPage(w.page, res!.headers()['content-security-policy'])
  await w.page.fill('#api_key', key)
  await Promise.all([w.page.waitForURL(`${root}${path}`), w.page.click('button[type=submit]')])
}

system.describe('the web view in chromium', () => {
  it('signs in by key, searches, opens an entry, and passes axe on every page', async () => {
    await withPage(async (w) => {
      const {page} = w
      await signInByKey(w, d.ownerKey, '/search')
      await page.fill('#q', 'port')
      await Promise.all([page.waitForURL(/\/search\?q=port/), page.press('#q', 'Enter')])
      expect(await page.textContent('#results')).toContain('Port 7411 already in use')
      await screenshot(page, 'web-search')
      await Promise.all([page.waitForURL(`${root}/e/${entryId}`), page.click(`a[href="/e/${entryId}"]`)])
      expect(await page.textContent('h1')).toBe('Port 7411 already in use')
      expect(await page.getAttribute('a[href^="https://github.com/acme/api/blob/"]', 'href')).toBe(
        `https://github.com/acme/api/blob/${'b'.repeat(40)}/server/daemon.ts#L40-L62`,
      )
      await screenshot(page, 'web-entry')
      for (const path of [
        '/search',
        '/search?q=port',
        `/e/${entryId}`,
        `/e/${hostileId}`,
        '/review',
        '/projects',
        '/e/00000000-0000-4000-8000-000000000000',
      ]) {
        const res = await page.goto(`${root}${path}`)
        await checkPage(page, res!.headers()['content-security-policy'])
      }
    })
  })

  it('renders hostile entries inert: nothing runs, no link leaves for javascript:', async () => {
    await withPage(async (w) => {
      const {page} = w
      await signInByKey(w, d.ownerKey, `/e/${hostileId}`)
      expect(await page.evaluate(() => (globalThis as {__pwned?: unknown}).__pwned)).toBeUndefined()
      expect(await page.$$('main script, main img, main iframe, main style')).toEqual([])
      const hrefs = await page.$$eval('main a', (as) => as.map((a) => a.getAttribute('href') ?? ''))
      expect(hrefs.filter((h) => !/^(https?:|mailto:|\/)/.test(h))).toEqual([])
      expect(await page.textContent('h1')).toContain('<script>')
      await page.goto(`${root}/search?q=hostile`)
      expect(await page.evaluate(() => (globalThis as {__pwned?: unknown}).__pwned)).toBeUndefined()
    })
  })

  it('works from the keyboard: / to search, j/k through results, o to open', async () => {
    await withPage(async (w) => {
      const {page} = w
      await signInByKey(w, d.ownerKey, '/search?q=port')
      await page.keyboard.press('/')
      expect(await page.evaluate(() => document.activeElement?.id)).toBe('q')
      await page.keyboard.press('Escape')
      await page.keyboard.press('j')
      await page.keyboard.press('j')
      await page.keyboard.press('k')
      const first = await page.getAttribute('.hit.current a', 'href')
      expect(first).toMatch(/^\/e\//)
      await Promise.all([page.waitForURL(`${root}${first}`), page.keyboard.press('o')])
      // Tab reaches the skip link first, and it leads to the content.
      await page.keyboard.press('Tab')
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content')
    })
  })

  it('searches as you type', async () => {
    await withPage(async (w) => {
      const {page} = w
      await signInByKey(w, d.ownerKey, '/search')
      await page.type('#q', 'lsof', {delay: 20})
      await page.waitForFunction(() => document.querySelector('#results h2')?.textContent?.includes('lsof'))
      expect(await page.textContent('#results')).toContain('Port 7411 already in use')
      expect(page.url()).toBe(`${root}/search?q=lsof&scope=&project=&status=&freshness=&tag=`)
    })
  })

  it('is usable 360 px wide, in light and dark', async () => {
    await withPage(
      async (w) => {
        const {page} = w
        await signInByKey(w, d.ownerKey, `/e/${entryId}`)
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360)
        const shot = await screenshot(page, 'web-entry-360')
        expect(readFileSync(shot).readUInt32BE(16)).toBe(360) // the PNG's width
        await page.emulateMedia({colorScheme: 'dark'})
        const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor)
        expect(bg).toBe('rgb(22, 24, 28)')
        await checkPage(page, (await page.reload())!.headers()['content-security-policy'])
        await screenshot(page, 'web-entry-360-dark')
      },
      {width: 360},
    )
  })

  it('comments, verifies, flags, and publishes with a finding after seeing it', async () => {
    const id = (
      await d.request('POST', '/knowledge', {
        body: {title: 'Bucket access', body: 'The key is AKIAQ5XTYWBN7TGHMK2P for now.', scope: 'private'},
      })
    ).body.id as string
    await withPage(async (w) => {
      const {page} = w
      await signInByKey(w, d.ownerKey, `/e/${id}`)
      await page.fill('#comment-body', 'Rotate it **soon**.')
      await Promise.all([page.waitForURL(`${root}/e/${id}?done=comment`), page.click('form[action$="/comment"] button')])
      expect(await page.textContent('[role=status]')).toContain('Your comment was added.')
      expect(await page.innerHTML('#comments + ul')).toContain('<strong>soon</strong>')

      await page.click('summary:text("Verify")')
      await Promise.all([page.waitForURL(/done=verify/), page.click('form[action$="/verify"] button')])
      expect(await page.textContent('main')).toContain('Verified')

      await page.click('summary:text("Flag")')
      await page.selectOption('#flag-reason', 'stale')
      await Promise.all([page.waitForURL(/done=flag/), page.click('form[action$="/flag"] button')])
      expect(await page.textContent('.badges')).toContain('flagged')

      await page.click('summary:text("Publish")')
      await page.selectOption('#publish-scope', 'global')
      await Promise.all([page.waitForURL(/\/publish\?scope=global/), page.click('form[action$="/publish"] button')])
      expect(await page.textContent('main')).toContain('1 finding')
      expect(await page.textContent('main')).not.toContain('AKIAQ5XTYWBN7TGHMK2P')
      await checkPage(page, (await page.reload())!.headers()['content-security-policy'])
      await screenshot(page, 'web-publish')
      await Promise.all([page.waitForURL(`${root}/e/${id}?done=publish`), page.click('button:text("Redact and publish")')])
      expect(await page.textContent('.badges')).toContain('global')
      expect(await page.textContent('.body')).toContain('[REDACTED:')
    })
  })

  it("signs in through the daemon's own OAuth consent page, leaving a session and no grant", async () => {
    const key = (await d.request('POST', '/api-keys', {body: {principal: 'carol'}})).body.key as string
    await withPage(async (w) => {
      const {page} = w
      await page.goto(`${root}/projects`)
      await Promise.all([page.waitForURL(/\/oauth\/authorize/), page.click('a[href^="/signin/oauth"]')])
      expect(await page.textContent('#client-name')).toBe('kb web view')
      await page.fill('#api_key', key)
      await Promise.all([page.waitForURL(`${root}/projects`), page.click('button[value=approve]')])
      expect(await page.textContent('header')).toContain('carol')
      const grants = (await d.request('GET', '/oauth/grants', {key})).body.items
      expect(grants.map((g: any) => g.client_id)).toEqual(['kb-web'])
    })
  })

  it('refuses a form whose token was tampered with, and ends the session when its key is revoked', async () => {
    const key = (await d.request('POST', '/api-keys', {body: {name: 'browser-revoke'}})).body
    await withPage(async (w) => {
      const {page} = w
      await signInByKey(w, key.key, `/e/${entryId}`)
      // The DevTools protocol is not bound by the page's CSP: it plays a page that forged the form's token.
      await page.evaluate(() => {
        for (const i of Array.from(document.querySelectorAll('input[name=csrf_token]'))) i.value = 'forged'
      })
      await page.fill('#comment-body', 'should not land')
      const [res] = await Promise.all([page.waitForNavigation(), page.click('form[action$="/comment"] button')])
      expect(res!.status()).toBe(403)
      expect(await page.textContent('[role=alert]')).toContain('could not be verified')
      expect((await d.request('GET', `/knowledge/${entryId}/comments`)).body.items.map((c: any) => c.body)).not.toContain('should not land')

      expect((await d.request('DELETE', '/api-keys', {body: {id: key.id}})).status).toBe(204)
      await page.goto(`${root}/e/${entryId}`)
      expect(page.url()).toContain('/signin?next=')
    })
  })

  it('signs in by a one-time link, and signs out', async () => {
    const link = (await d.request('POST', '/web/links', {body: {next: `/e/${entryId}`}})).body.url as string
    await withPage(async (w) => {
      const {page} = w
      await page.goto(link)
      expect(page.url()).toBe(`${root}/e/${entryId}`)
      await Promise.all([page.waitForURL(/\/signin/), page.click('header button[type=submit]')])
      const res = await page.goto(`${root}/projects`)
      expect(res!.url()).toContain('/signin?next=')
      // The link was used once: it signs in no one again.
      await page.goto(link)
      expect(await page.textContent('.error')).toContain('unknown, used or expired')
    })
  })
})
