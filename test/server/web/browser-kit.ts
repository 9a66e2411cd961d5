/**
 * @module What the web view's browser tests share: chromium started as the consent page's tests start it, a fresh
 * context per test, every page checked for CSP violations and its JavaScript dialogs and errors recorded, axe-core
 * run in the page (through the DevTools protocol, which the CSP does not govern), and screenshots written where
 * docs/web.md shows them when KB_WRITE_SCREENSHOTS=1 (else to a temporary directory).
 */
import {mkdirSync} from 'node:fs'
import {join} from 'node:path'
import axe from 'axe-core'
import {chromium, type Browser, type BrowserContext, type Page} from 'playwright-core'
import {expect} from 'vitest'
import {ROOT, tempDir} from '../../helpers/daemon.js'

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]

const AXE_SOURCE = axe.source

export function launch(executablePath: string): Promise<Browser> {
  return chromium.launch({executablePath, args: CHROMIUM_ARGS})
}

/** What went wrong in a page that should never go wrong: CSP violations, uncaught errors, dialogs (alert from a hostile entry). */
export interface Watched {
  page: Page
  context: BrowserContext
  violations: string[]
  errors: string[]
  dialogs: string[]
}

export async function watchedPage(browser: Browser, options: {width?: number} = {}): Promise<Watched> {
  const context = await browser.newContext({viewport: {width: options.width ?? 1100, height: 900}, colorScheme: 'light'})
  const page = await context.newPage()
  const w: Watched = {page, context, violations: [], errors: [], dialogs: []}
  page.on('console', (m) => {
    if (/Content[- ]Security[- ]Policy/i.test(m.text())) w.violations.push(m.text())
  })
  page.on('pageerror', (e) => w.errors.push(String(e)))
  page.on('dialog', (d) => {
    w.dialogs.push(d.message())
    void d.dismiss()
  })
  return w
}

/** Serious and critical axe-core violations of the page as it is now, as readable lines. */
async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE)
  const result = (await page.evaluate(() =>
    (globalThis as unknown as {axe: {run: (o: unknown) => Promise<unknown>}}).axe.run({resultTypes: ['violations']}),
  )) as {violations: Array<{id: string; impact: string; help: string; nodes: Array<{target: string[]}>}>}
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`)
}

/** Checks a page as every page must be: the CSP header, no serious accessibility problem. */
export async function checkPage(page: Page, cspHeader: string | undefined): Promise<void> {
  expect(cspHeader, page.url()).toMatch(/default-src 'none'; script-src 'self'; style-src 'self'.*frame-ancestors 'none'/)
  expect(await axeViolations(page), page.url()).toEqual([])
}

const shotDir = process.env.KB_WRITE_SCREENSHOTS === '1' ? join(ROOT, 'docs/images') : tempDir('kb-web-shots-')

/** A screenshot named `name`.png; returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(shotDir, {recursive: true})
  const path = join(shotDir, `${name}.png`)
  await page.screenshot({path, fullPage: false})
  return path
}
