/**
 * @module The entry page at `/e/<id>` (docs/web.md, "Entry page"): title, state badges with the reasons, the body
 * as rendered Markdown, tags, anchors linked to the forge, resolution, thought chain, comments, forks and history;
 * the actions a signed-in person may take are given by the caller as a block of forms.
 */
import type {HistoryItem} from '../../../src/shared/curation-schemas.js'
import type {EntryFull, Project} from '../../../src/shared/types.js'
import {anchorUrl} from '../forge.js'
import {html, type Html} from '../html.js'
import {page, type PageContext} from '../layout.js'
import {markdownHtml} from '../markdown.js'
import {badges} from './parts.js'

export interface EntryPageView {
  entry: EntryFull
  project: Project | null
  /** Titles of entries this one points at (superseded by, forked from), when the viewer can see them. */
  titles: Map<string, string>
  history: HistoryItem[]
  /** A message after an action (done, or why not). */
  notice?: {kind: 'ok' | 'error'; text: string}
  actions?: Html
}

const day = (t: string | null | undefined): string => (t ? t.slice(0, 10) : '')

/** A link that leaves kb only for http(s). */
function external(url: string | null | undefined, text: string): Html {
  if (!url || !/^https?:\/\//i.test(url)) return html`${text}`
  return html`<a href="${url}" rel="noopener nofollow ugc">${text}</a>`
}

function entryLink(ctx: PageContext, id: string, titles: Map<string, string>): Html {
  return html`<a href="${ctx.root}/e/${id}">${titles.get(id) ?? id}</a>`
}

function state(ctx: PageContext, v: EntryPageView): Html {
  const e = v.entry
  const parts: Html[] = []
  if (e.superseded_by) parts.push(html`<p class="notice">Superseded by ${entryLink(ctx, e.superseded_by, v.titles)}.</p>`)
  if (e.freshness.state === 'stale')
    parts.push(
      html`<div class="notice">
        <p>Stale, because:</p>
        <ul>
          ${e.freshness.reasons.map((r) => html`<li>${r.detail}</li>`)}
        </ul>
      </div>`,
    )
  const flags = Object.entries(e.flags).filter(([, n]) => n > 0)
  if (flags.length > 0)
    parts.push(html`<p class="notice">Flagged: ${flags.map(([reason, n], i) => html`${i > 0 ? ', ' : ''}${reason} ×${n}`)}.</p>`)
  const verified = e.freshness.verified_at
    ? html`Verified ${day(e.freshness.verified_at)}${e.freshness.verified_by ? html` by ${e.freshness.verified_by.name}` : ''}.`
    : html`Never verified.`
  parts.push(html`<p class="meta">${verified} Confidence ${Math.round(e.confidence * 100)}%.</p>`)
  return html`${parts}`
}

function anchors(v: EntryPageView): Html {
  if (v.entry.anchors.length === 0) return html``
  const items = v.entry.anchors.map((a) => {
    const where = `${a.path}${a.lines ? `:${a.lines}` : ''}${a.symbol ? ` (${a.symbol})` : ''}`
    const url = anchorUrl(v.project?.remote ?? null, a)
    return html`<li>
      <span class="mono">${url ? html`<a href="${url}" rel="noopener nofollow">${where}</a>` : where}</span>
      <span class="muted">${a.state}${a.commit ? ` at ${a.commit.slice(0, 12)}` : ''}</span>
    </li>`
  })
  return html`<section class="panel" aria-labelledby="anchors">
    <h2 id="anchors">Code it is about</h2>
    <ul class="plain">
      ${items}
    </ul>
  </section>`
}

function resolution(e: EntryFull): Html {
  const r = e.resolution
  if (!r) return html``
  return html`<section class="panel" aria-labelledby="resolution">
    <h2 id="resolution">Resolution</h2>
    <p class="meta">
      Resolved
      ${day(r.resolved_at)}${r.resolved_by ? html` by ${r.resolved_by.name}` : ''}${r.url ? html` · ${external(r.url, r.url)}` : ''}
    </p>
    ${r.note ? markdownHtml(r.note) : ''}
  </section>`
}

function thoughts(e: EntryFull): Html {
  if (e.thought_chain.length === 0) return html``
  return html`<section class="panel" aria-labelledby="thoughts">
    <h2 id="thoughts">Thought chain</h2>
    <ol>
      ${e.thought_chain.map((s) => html`<li><span class="muted">${s.kind ?? ''}</span> ${s.thought}</li>`)}
    </ol>
  </section>`
}

function comments(e: EntryFull): Html {
  const list = e.comments.map(
    (c) =>
      html`<li id="comment-${c.id}">
        <p class="meta">${c.author.name} · ${c.type} · ${day(c.created_at)}</p>
        <div class="body">${markdownHtml(c.body)}</div>
      </li>`,
  )
  const older = e.comments_truncated
    ? html`<p class="muted">Older comments are left out; <code>kb show --full</code> lists them all.</p>`
    : ''
  return html`<section class="panel" aria-labelledby="comments">
    <h2 id="comments">Comments (${e.comment_count})</h2>
    ${older}${
      list.length === 0
        ? html`<p class="muted">No comments yet.</p>`
        : html`<ul class="plain">
            ${list}
          </ul>`
    }
  </section>`
}

function lineage(ctx: PageContext, v: EntryPageView): Html {
  const e = v.entry
  if (!e.forked_from && e.branches.length === 0) return html``
  const from = e.forked_from ? html`<p>Forked from ${entryLink(ctx, e.forked_from, v.titles)}.</p>` : ''
  const forks =
    e.branches.length > 0
      ? html`<ul class="plain">
          ${e.branches.map((b) => html`<li><a href="${ctx.root}/e/${b.id}">${b.title}</a> <span class="muted">${b.scope} · ${b.author.name} · ${day(b.created_at)}</span></li>`)}
        </ul>`
      : ''
  return html`<section class="panel" aria-labelledby="forks">
    <h2 id="forks">Forks</h2>
    ${from}${forks}
  </section>`
}

function history(items: HistoryItem[]): Html {
  if (items.length === 0) return html``
  return html`<section class="panel" aria-labelledby="history">
    <h2 id="history">History</h2>
    <ul class="plain">
      ${items.map((h) => {
        const changes = Object.entries(h.changes)
          .map(([k, d]) => `${k} ${d}`)
          .join(', ')
        return html`<li>
          <span class="mono">${day(h.at)}</span> ${h.action} by ${h.actor.name}
          <span class="muted">(${h.actor.via}${h.actor.client ? `, ${h.actor.client}` : ''})</span
          >${changes ? html` — ${changes}` : ''}${h.note ? html` — ${h.note}` : ''}
        </li>`
      })}
    </ul>
  </section>`
}

export function entryPage(ctx: PageContext, v: EntryPageView): string {
  const e = v.entry
  const notice = v.notice
    ? html`<p class="${v.notice.kind === 'ok' ? 'notice' : 'error'}" role="${v.notice.kind === 'ok' ? 'status' : 'alert'}">
        ${v.notice.text}
      </p>`
    : ''
  const where = v.project ? html` in <a href="${ctx.root}/search?project=${v.project.id}">${v.project.name}</a>` : ''
  const tags =
    e.tags.length > 0
      ? html`<ul class="tags" aria-label="Tags">
          ${e.tags.map((t) => html`<li><a href="${ctx.root}/search?tag=${encodeURIComponent(t)}">#${t}</a></li>`)}
        </ul>`
      : ''
  const body = html`${notice}
    <article>
      <h1>${e.title}</h1>
      ${badges(e)}
      <p class="meta">
        By ${e.author.name}${where} · created ${day(e.created_at)} · updated ${day(e.updated_at)} · version ${e.version} ·
        <span class="mono">${e.id}</span>
      </p>
      ${state(ctx, v)}
      <div class="body">${markdownHtml(e.body)}</div>
      ${tags}${e.url ? html`<p>Source: ${external(e.url, e.url)}</p>` : ''}
    </article>
    ${anchors(v)}${resolution(e)}${thoughts(e)}${comments(e)}${lineage(ctx, v)}${v.actions ?? ''}${history(v.history)}`
  return page(ctx, e.title, body)
}
