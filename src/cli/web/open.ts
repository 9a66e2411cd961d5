/**
 * @module Opening the web view from the CLI (`kb open`, `kb show --web`; docs/web.md, "Sessions"): the daemon is asked,
 * with the CLI's own API key, for a one-time link, and the browser is opened at it — never through a shell, never with
 * the key in the URL. Where no browser can appear the link is printed instead: it works once, within a minute.
 */
import type {ApiClient} from '../../shared/client.js'
import {canOpenBrowser, openBrowser} from '../oauth/browser.js'

export interface Opened {
  /** The page the link leads to, without the link's code (safe to print, to log, to paste). */
  page: string
  opened: boolean
  /** The one-time link: given back only when it was not opened (to print), never otherwise. */
  link?: string
  expires_at: string
}

/** Asks for a one-time link to `id`'s page (or the search page) and opens the browser at it unless `print`. */
export async function openWebView(client: ApiClient, id: string | undefined, o: {print: boolean}): Promise<Opened> {
  // The entry is read first: a missing or hidden one is the usual not-found error, before any browser opens.
  const next = id ? `/e/${(await client.getEntry(id, 'summary')).entry.id}` : '/search'
  const {url, expires_at} = await client.webLink(next)
  const u = new URL(url)
  const page = `${u.origin}${u.searchParams.get('next') ?? next}`
  const opened = !o.print && canOpenBrowser() && (await openBrowser(url))
  return opened ? {page, opened, expires_at} : {page, opened, link: url, expires_at}
}

/** What `kb open` and `kb show --web` print: the page opened, or the link to open (alone on its line when piped). */
export function openedText(r: Opened, tty: boolean): string {
  if (r.opened) return tty ? `Opened ${r.page} in your browser` : r.page
  return tty ? `Open this link to sign in (once, within a minute):\n${r.link}` : r.link!
}
