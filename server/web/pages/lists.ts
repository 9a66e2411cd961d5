/**
 * @module The sign-in page, the review queue and the project list (docs/web.md): short pages over one answer each.
 */
import {REVIEW_KINDS} from '../../../src/shared/contract.js'
import type {ReviewPage} from '../../../src/shared/curation-schemas.js'
import type {Project} from '../../../src/shared/types.js'
import {html} from '../html.js'
import {page, type PageContext} from '../layout.js'
import {badges} from './parts.js'

export interface SignInView {
  csrf: string
  /** Where to go once signed in (a path of this site). */
  next: string
  error?: string
  /** The daemon's own OAuth authorization server, when it may be used to sign in. */
  oauthUrl?: string
}

export function signInPage(ctx: PageContext, v: SignInView): string {
  const error = v.error ? html`<p class="error" role="alert">${v.error}</p>` : ''
  const oauth = v.oauthUrl ? html`<p>Or <a href="${v.oauthUrl}">sign in through kb's authorization page</a>.</p>` : ''
  const body = html`<div class="signin">
    <h1>Sign in to kb</h1>
    <p>A team's knowledge is not public: prove who you are with one of your API keys.</p>
    ${error}
    <form method="post" action="${ctx.root}/signin" autocomplete="off">
      <input type="hidden" name="csrf_token" value="${v.csrf}" />
      <input type="hidden" name="next" value="${v.next}" />
      <label for="api_key">Your kb API key</label>
      <input type="password" id="api_key" name="api_key" placeholder="kb_…" autocomplete="off" spellcheck="false" required />
      <p class="muted">
        From <code>owner.key</code> or <code>kb api-key create</code>. The key stays here: the browser gets a session that ends when you
        sign out or the key is revoked.
      </p>
      <p><button type="submit" class="primary">Sign in</button></p>
    </form>
    ${oauth}
    <p class="muted">On your own machine, <code>kb open</code> opens this site already signed in.</p>
  </div>`
  return page(ctx, 'Sign in', body)
}

export function reviewPage(ctx: PageContext, v: {queue: ReviewPage; kind: string; next: string | null}): string {
  const counts = html`<ul class="tags" aria-label="Kinds">
    ${[
      html`<li><a href="${ctx.root}/review" ${v.kind === '' ? html` aria-current="page"` : ''}>all</a></li>`,
      ...REVIEW_KINDS.map(
        (k) =>
          html`<li>
            <a href="${ctx.root}/review?kind=${k}" ${v.kind === k ? html` aria-current="page"` : ''}
              >${k.replace('_', ' ')} (${v.queue.counts[k]})</a
            >
          </li>`,
      ),
    ]}
  </ul>`
  const items = v.queue.items.map(
    (i) =>
      html`<li class="hit">
        <h2><a href="${ctx.root}/e/${i.entry.id}">${i.entry.title}</a></h2>
        ${badges(i.entry)}
        <ul>
          ${i.reasons.map(
            (r) => html`<li>${r.detail}${r.other ? html` — <a href="${ctx.root}/e/${r.other.id}">${r.other.title}</a>` : ''}</li>`,
          )}
        </ul>
      </li>`,
  )
  const body = html`<h1>Review queue</h1>
    <p class="muted">What a curator should look at, most used first.</p>
    ${counts}
    <section id="results" aria-label="Entries to review">
      ${
        items.length === 0
          ? html`<p>Nothing to review.</p>`
          : html`<ol class="hits">
              ${items}
            </ol>`
      }${v.next ? html`<nav class="pages" aria-label="Pages"><a href="${v.next}" rel="next">Next page</a></nav>` : ''}
    </section>`
  return page(ctx, 'Review', body, 'review')
}

export function projectsPage(ctx: PageContext, projects: Project[]): string {
  const rows = projects.map(
    (p) =>
      html`<li>
        <a href="${ctx.root}/search?project=${p.id}">${p.name}</a> <span class="mono muted">${p.remote}</span>
        <span class="muted">· ${p.role}</span> · <a href="${ctx.root}/review?project=${p.id}">review</a>
      </li>`,
  )
  const body = html`<h1>Projects</h1>
    ${
      rows.length === 0
        ? html`<p>You are in no project yet: <code>kb project join</code> in a checkout.</p>`
        : html`<ul class="plain">
            ${rows}
          </ul>`
    }`
  return page(ctx, 'Projects', body, 'projects')
}
