/**
 * @module The search page (docs/web.md, "Search"): the query and its filters as a plain GET form, results with
 * highlighted snippets and state badges, pages of results. Without a query it lists the newest entries.
 */
import {FRESHNESS_STATES, SCOPES, STATUSES} from '../../../src/shared/contract.js'
import type {EntryView, Project} from '../../../src/shared/types.js'
import {html, snippetHtml, type Html} from '../html.js'
import {page, type PageContext} from '../layout.js'
import {badges} from './parts.js'

/** Results per page; a search reaches at most LIMIT_MAX results, so its pages stop there. */
export const PAGE_SIZE = 20

export interface SearchForm {
  q: string
  scope: string
  project: string
  status: string
  tag: string
  freshness: string
  page: number
  cursor: string
}

export interface SearchView {
  form: SearchForm
  projects: Project[]
  items: Array<EntryView & {snippet?: string}>
  /** Search only: how many entries matched. */
  total?: number
  /** The link to the next page, when there is one. */
  next: string | null
  prev: string | null
  error?: string
}

function select(name: string, label: string, value: string, options: ReadonlyArray<readonly [string, string]>): Html {
  return html`<div>
    <label for="${name}">${label}</label
    ><select id="${name}" name="${name}">
      ${options.map(([v, text]) => html`<option value="${v}" ${v === value ? html` selected` : ''}>${text}</option>`)}
    </select>
  </div>`
}

function hit(ctx: PageContext, e: EntryView & {snippet?: string}): Html {
  const text = e.snippet !== undefined && e.snippet !== '' ? snippetHtml(e.snippet) : html`${'tags' in e ? '' : e.body}`
  const tags = 'tags' in e && e.tags.length > 0 ? html` · ${e.tags.join(', ')}` : ''
  const when = 'updated_at' in e ? html` · updated ${e.updated_at.slice(0, 10)}` : ''
  return html`<li class="hit">
    <h2><a href="${ctx.root}/e/${e.id}">${e.title}</a></h2>
    ${badges(e)}
    <p>${text}</p>
    <p class="meta">${'scope' in e ? e.scope : ''}${when}${tags}</p>
  </li>`
}

export function searchPage(ctx: PageContext, v: SearchView): string {
  const f = v.form
  const any: [string, string] = ['', 'any']
  const filters = html`<div class="row">
    ${select('scope', 'Scope', f.scope, [any, ...SCOPES.map((s) => [s, s] as const)])}
    ${select('project', 'Project', f.project, [any, ...v.projects.map((p) => [p.id, p.name] as const)])}
    ${select('status', 'Status', f.status, [any, ...STATUSES.map((s) => [s, s] as const)])}
    ${select('freshness', 'Freshness', f.freshness, [any, ...FRESHNESS_STATES.map((s) => [s, s] as const)])}
    <div><label for="tag">Tag</label><input id="tag" name="tag" value="${f.tag}" size="12" maxlength="40" /></div>
    <div><button type="submit" class="primary">Search</button></div>
  </div>`
  const heading = f.q === '' ? 'Newest entries' : `Results for “${f.q}”`
  const count =
    v.total !== undefined ? html`<p class="muted" role="status">${v.total} ${v.total === 1 ? 'entry matches' : 'entries match'}.</p>` : ''
  const none = v.items.length === 0 ? html`<p>${f.q === '' ? 'Nothing here yet.' : 'Nothing matched. Try fewer or other words.'}</p>` : ''
  const pages =
    v.prev || v.next
      ? html`<nav class="pages" aria-label="Pages">
          ${v.prev ? html`<a href="${v.prev}" rel="prev">Previous page</a>` : ''}${
            v.next ? html`<a href="${v.next}" rel="next">Next page</a>` : ''
          }
        </nav>`
      : ''
  const error = v.error ? html`<p class="error" role="alert">${v.error}</p>` : ''
  const body = html`<h1>Search</h1>
    <form class="search" method="get" action="${ctx.root}/search" role="search">
      <div>
        <label for="q">Words to look for</label
        ><input type="search" id="q" name="q" value="${f.q}" maxlength="500" autocomplete="off" placeholder="port already in use" />
      </div>
      ${filters}
    </form>
    ${error}
    <section id="results" aria-labelledby="results-heading">
      <h2 id="results-heading">${heading}</h2>
      ${count}${none}
      <ol class="hits">
        ${v.items.map((e) => hit(ctx, e))}
      </ol>
      ${pages}
    </section>
    <p class="muted">Keys: <kbd>/</kbd> search, <kbd>j</kbd>/<kbd>k</kbd> move, <kbd>o</kbd> open.</p>`
  return page(ctx, f.q === '' ? 'Search' : `${f.q} – search`, body, 'search')
}
