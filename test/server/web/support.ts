/**
 * @module Helpers of the web view's tests: a browser-like client over fetch (cookies kept, redirects not followed)
 * that signs in through the real sign-in form, and a few entries that would do harm if rendered as markup.
 */
import type {TestDaemon} from '../../helpers/daemon.js'

export interface WebClient {
  root: string
  cookies: Map<string, string>
  get(path: string, headers?: Record<string, string>): Promise<Response>
  post(path: string, form: Record<string, string>, headers?: Record<string, string>): Promise<Response>
  /** The form token of the page at `path` (every signed-in page carries one in its sign-out form). */
  csrf(path?: string): Promise<string>
}

export function webRoot(d: TestDaemon): string {
  return d.url.replace(/\/api\/v1$/, '')
}

export function webClient(d: TestDaemon): WebClient {
  const root = webRoot(d)
  const cookies = new Map<string, string>()
  const keep = (res: Response): Response => {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';')
      const eq = pair!.indexOf('=')
      const name = pair!.slice(0, eq).trim()
      const gone = attrs.some((a) => a.trim().toLowerCase() === 'max-age=0')
      if (gone) cookies.delete(name)
      else cookies.set(name, pair!.slice(eq + 1).trim())
    }
    return res
  }
  const cookieHeader = (): Record<string, string> =>
    cookies.size === 0 ? {} : {cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; ')}
  const client: WebClient = {
    root,
    cookies,
    get: async (path, headers = {}) => keep(await fetch(root + path, {redirect: 'manual', headers: {...cookieHeader(), ...headers}})),
    post: async (path, form, headers = {}) =>
      keep(
        await fetch(root + path, {
          method: 'POST',
          redirect: 'manual',
          headers: {...cookieHeader(), 'content-type': 'application/x-www-form-urlencoded', ...headers},
          body: new URLSearchParams(form),
        }),
      ),
    csrf: async (path = '/projects') => formToken(await (await client.get(path)).text()),
  }
  return client
}

export function formToken(html: string): string {
  const m = /name="csrf_token" value="([^"]+)"/.exec(html)
  if (!m) throw new Error(`no form token in the page: ${html.slice(0, 300)}`)
  return m[1]!
}

/** Signs in through the sign-in form with `key`; returns the answer to the form's POST. */
export async function signIn(c: WebClient, key: string, next = '/search'): Promise<Response> {
  const page = await c.get(`/signin?next=${encodeURIComponent(next)}`)
  return c.post('/signin', {csrf_token: formToken(await page.text()), next, api_key: key})
}

/** Entries whose text would run code, leave the site or read other than it shows if it became markup. */
export const HOSTILE = {
  title: 'Hostile <script>window.__pwned=1</script> <img src=x onerror="window.__pwned=2"> \u202Egnp.exe',
  body: [
    '<script>window.__pwned=3</script>',
    '<img src=x onerror="window.__pwned=4">',
    '[click me](javascript:window.__pwned=5) [data](data:text/html;base64,PHNjcmlwdD4=) [vb](vbscript:msgbox) [tab](java\tscript:alert(1))',
    '![pixel](javascript:alert(1)) <a href="javascript:alert(1)">raw link</a>',
    '<iframe src="https://example.com"></iframe> <style>body{display:none}</style>',
    'bidi: abc\u202Edcba\u2066x\u2069 zero\u200Bwidth',
    '[safe](https://example.com/ok) and <mailto:team@example.com>',
  ].join('\n\n'),
  comment: 'A comment with <b onmouseover="window.__pwned=6">HTML</b> and <script>window.__pwned=7</script> and [js](javascript:alert(1))',
  tag: 'hostile',
}
