/**
 * Driving the `kb browse` Ink component in tests (ink-testing-library) against a real daemon over HTTP:
 * keys, the frame, waiting for text, and reading entries back through the API.
 */
import {render} from 'ink-testing-library'
import {httpClient} from '../../../src/cli/client/http-transport.js'
import {BrowseApp, type BrowseProps} from '../../../src/cli/tui/app.js'
import type {TestDaemon} from '../../helpers/daemon.js'

export const KEY = {
  up: '\u001B[A',
  down: '\u001B[B',
  enter: '\r',
  esc: '\u001B',
  tab: '\t',
  backspace: '\u007F',
  pgDown: '\u001B[6~',
  pgUp: '\u001B[5~',
}

/** Mounted screens, unmounted after each test. */
export const live: {unmount: () => void}[] = []

export function unmountAll(): void {
  while (live.length > 0) live.pop()!.unmount()
}

export interface Ui {
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

export function ui(d: TestDaemon, {key, ...props}: Partial<BrowseProps> & {key?: string} = {}): Ui {
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
export function row(title: string): RegExp {
  return new RegExp(`^› ${title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 'm')
}

/** The line of the list that is selected (marked with ›). */
export function selectedRow(frame: string): string {
  return frame.split('\n').find((l) => l.startsWith('› ')) ?? ''
}

/** An entry at `full` as the API serves it, or the status of the answer when there is none. */
export interface Served {
  status?: string
  status_code?: number
  scope?: string
  branches?: {title: string; scope: string}[]
  comments?: {type: string; body: string}[]
  resolution?: {note: string | null}
}

export async function entry(d: TestDaemon, id: string): Promise<Served> {
  const r = await d.request('GET', `/knowledge/${id}`, {query: {detail: 'full'}})
  return r.status === 200 ? r.body : {status_code: r.status}
}
