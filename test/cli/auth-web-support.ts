/**
 * @module What the `kb auth login --web` tests share: the login process with the URL it prints on stderr,
 * and the consent page played in chromium.
 */
import {spawn} from 'node:child_process'
import {rmSync} from 'node:fs'
import {chromium, type Browser, type Page} from 'playwright-core'
import {expect} from 'vitest'
import {KB_BIN, startChildDaemon, tempDir, type ChildDaemon} from '../helpers/daemon.js'
import {findSystem} from '../helpers/system.js'
import {cleanup, makeUser, type KbEnv, type RunResult} from './helpers.js'

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

/** What every `kb auth login --web` test needs: a child daemon, a headless chromium and a kb user of its own. */
export interface AuthWebFixture {
  d: ChildDaemon
  browser: Browser
  user: KbEnv
  stop(): Promise<void>
}

/** Starts the daemon and the browser side by side; the user's KB_BASE_URL points at the daemon. */
export async function startAuthWebFixture(prefix: string, env: Record<string, string>): Promise<AuthWebFixture> {
  const daemonDir = tempDir(prefix)
  const user = makeUser({KB_NO_AUTOSTART: '1', DISPLAY: '', WAYLAND_DISPLAY: '', ...env})
  const [dr, br] = await Promise.allSettled([
    startChildDaemon({dataDir: daemonDir}),
    chromium.launch({executablePath: findSystem('chromium').path ?? 'chromium', args: CHROMIUM_ARGS}),
  ])
  const stop = async (): Promise<void> => {
    if (br.status === 'fulfilled') await br.value.close()
    if (dr.status === 'fulfilled') await dr.value.stop()
    await cleanup(user)
    rmSync(daemonDir, {recursive: true, force: true})
  }
  for (const r of [dr, br]) {
    if (r.status === 'rejected') {
      await stop()
      throw r.reason
    }
  }
  const d = (dr as PromiseFulfilledResult<ChildDaemon>).value
  user.env.KB_BASE_URL = d.url
  return {d, browser: (br as PromiseFulfilledResult<Browser>).value, user, stop}
}

export interface Login {
  /** The authorize URL kb printed on stderr. */
  url: Promise<string>
  done: Promise<RunResult>
}

/**
 * Starts `kb auth login --web` and hands out the URL it prints as soon as it appears. `daemonDir`: the
 * daemon's data directory, whose proof a sign-in at a loopback URL needs (docs/security.md); the stored
 * tokens remember it, so later commands need no KB_DATA_DIR.
 */
export function startLogin(user: KbEnv, daemonDir: string, args: string[] = ['--no-browser']): Login {
  const started = Date.now()
  const child = spawn(process.execPath, [KB_BIN, 'auth', 'login', '--web', '--json', ...args], {
    cwd: user.home,
    env: {...user.env, KB_DATA_DIR: daemonDir},
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  let found: (u: string) => void
  let missing: (e: Error) => void
  const url = new Promise<string>((resolve, reject) => ((found = resolve), (missing = reject)))
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()))
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString()
    const m = /^\s+(http:\/\/\S+\/oauth\/authorize\?\S+)$/m.exec(stderr)
    if (m) found(m[1]!)
  })
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000)
  const done = new Promise<RunResult>((resolve) =>
    child.on('close', (code) => {
      clearTimeout(timer)
      missing(new Error(`kb exited (${code}) without printing an authorize URL:\n${stderr}`))
      resolve({code, stdout, stderr, ms: Date.now() - started})
    }),
  )
  return {url, done}
}

async function inBrowser<T>(browser: Browser, fn: (page: Page) => Promise<T>): Promise<T> {
  const context = await browser.newContext()
  try {
    return await fn(await context.newPage())
  } finally {
    await context.close()
  }
}

/** Opens the consent page kb printed, pastes `key`, presses `decision`; returns the loopback page's text. */
export async function consent(
  browser: Browser,
  url: string,
  key: string,
  decision: 'approve' | 'deny',
): Promise<{title: string; body: string; landed: URL}> {
  return inBrowser(browser, async (page) => {
    expect((await page.goto(url))!.status()).toBe(200)
    expect(await page.textContent('#client-name')).toMatch(/^kb CLI on /)
    expect(await page.textContent('#redirect-host')).toMatch(/^127\.0\.0\.1:\d+$/)
    if (decision === 'approve') await page.fill('#api_key', key)
    await Promise.all([page.waitForURL(/^http:\/\/127\.0\.0\.1:\d+\/callback\?/), page.click(`button[value=${decision}]`)])
    await page.waitForSelector('#title')
    return {title: (await page.textContent('#title'))!, body: (await page.textContent('body'))!, landed: new URL(page.url())}
  })
}
