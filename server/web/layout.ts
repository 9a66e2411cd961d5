/**
 * @module The frame of every web page (docs/web.md): the document head (the style sheet and script as files),
 * the top bar with the navigation and the sign-out form, and the headers every page carries — a strict CSP
 * with no inline code, no framing, no caching of pages that hold someone's knowledge.
 */
import {ASSETS} from './assets.js'
import {html, type Html} from './html.js'

/** What a page needs to know about where it is served and who is looking. */
export interface PageContext {
  /** The web root's path on the public origin: '' or a proxy's prefix such as '/kb'. */
  root: string
  /** Set when signed in. */
  user?: {name: string; csrf: string}
}

/**
 * Headers of every page: scripts and styles only from this origin's files, forms only to it, nothing framed,
 * nothing sniffed, nothing cached (pages hold private knowledge), no referrer leaves the origin.
 */
export const PAGE_HEADERS: Record<string, string> = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
  'Cache-Control': 'no-store',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
}

export type NavItem = 'search' | 'review' | 'projects'

function nav(ctx: PageContext, active: NavItem | undefined): Html {
  if (!ctx.user) return html``
  const item = (id: NavItem, label: string, path: string): Html =>
    html`<a href="${ctx.root}${path}" ${active === id ? html` aria-current="page"` : ''}>${label}</a>`
  return html`<nav aria-label="Main">
      ${item('search', 'Search', '/search')} ${item('review', 'Review', '/review')} ${item('projects', 'Projects', '/projects')}
    </nav>
    <form method="post" action="${ctx.root}/signout">
      <input type="hidden" name="csrf_token" value="${ctx.user.csrf}" /><span class="muted">${ctx.user.name}</span>
      <button type="submit">Sign out</button>
    </form>`
}

/** A whole page: `title` names it in the tab, `body` is the main content. */
export function page(ctx: PageContext, title: string, body: Html, active?: NavItem): string {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="same-origin" />
        <title>${title} · kb</title>
        <link rel="stylesheet" href="${ctx.root}${ASSETS.style.path}" />
        <script src="${ctx.root}${ASSETS.script.path}" defer></script>
      </head>
      <body>
        <a class="skip" href="#main">Skip to content</a>
        <header class="top"><a class="brand" href="${ctx.root}/">kb</a>${nav(ctx, active)}</header>
        <main id="main">${body}</main>
      </body>
    </html> `.value
}

/** A page that says something went wrong, in words (a 404 says only that: a hidden entry is as absent as a missing one). */
export function messagePage(ctx: PageContext, title: string, message: string): string {
  return page(
    ctx,
    title,
    html`<h1>${title}</h1>
      <p class="error" role="alert">${message}</p>
      <p><a href="${ctx.root}/search">Search kb</a></p>`,
  )
}
