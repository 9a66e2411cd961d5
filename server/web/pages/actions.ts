/**
 * @module The forms of a signed-in person on an entry's page (docs/web.md, "Actions"): comment, verify, flag, resolve,
 * publish (through its preview), fork and supersede. Each posts to the daemon with the session's form token; each is
 * the API call it names, so a refusal comes back with the API's words.
 */
import {COMMENT_TYPES, FLAG_REASONS, SCOPES} from '../../../src/shared/contract.js'
import type {EntryFull, PublishPreview} from '../../../src/shared/types.js'
import {html, type Html} from '../html.js'
import {page, type PageContext} from '../layout.js'

/** What the redirect after a done action says (a fixed word in the URL, never text someone typed). */
export const DONE: Record<string, string> = {
  comment: 'Your comment was added.',
  verify: 'You verified this entry: it still holds.',
  flag: 'Your flag was recorded.',
  resolve: 'The entry is resolved.',
  publish: 'The entry was published.',
  fork: 'This is your fork.',
  supersede: 'The entry is marked superseded.',
}

function token(ctx: PageContext): Html {
  return html`<input type="hidden" name="csrf_token" value="${ctx.user?.csrf ?? ''}" />`
}

function action(ctx: PageContext, e: EntryFull, name: string): string {
  return `${ctx.root}/e/${e.id}/${name}`
}

export function actionForms(ctx: PageContext, e: EntryFull): Html {
  const wider = SCOPES.slice(SCOPES.indexOf(e.scope) + 1)
  return html`<section class="panel actions" aria-labelledby="act">
    <h2 id="act">Act on it</h2>
    <details open>
      <summary>Comment</summary>
      <form method="post" action="${action(ctx, e, 'comment')}">
        ${token(ctx)} <label for="comment-body">Comment (Markdown)</label
        ><textarea id="comment-body" name="body" required maxlength="20000"></textarea> <label for="comment-type">Kind</label
        ><select id="comment-type" name="type">
          ${COMMENT_TYPES.map((t) => html`<option value="${t}">${t}</option>`)}
        </select>
        <p><button type="submit" class="primary">Add comment</button></p>
      </form>
    </details>
    <details>
      <summary>Verify</summary>
      <form method="post" action="${action(ctx, e, 'verify')}">
        ${token(ctx)} <label for="verify-note">Note (optional)</label><input id="verify-note" name="note" maxlength="2000" />
        <p><button type="submit">It still holds</button></p>
      </form>
    </details>
    <details>
      <summary>Flag</summary>
      <form method="post" action="${action(ctx, e, 'flag')}">
        ${token(ctx)} <label for="flag-reason">Reason</label
        ><select id="flag-reason" name="reason">
          ${FLAG_REASONS.map((r) => html`<option value="${r}">${r}</option>`)}
        </select>
        <label for="flag-note">Note (optional)</label><input id="flag-note" name="note" maxlength="2000" />
        <p><button type="submit">Flag</button></p>
      </form>
    </details>
    ${
      e.status === 'open'
        ? html`<details>
            <summary>Resolve</summary>
            <form method="post" action="${action(ctx, e, 'resolve')}">
              ${token(ctx)} <label for="resolve-note">Resolution note (optional)</label
              ><input id="resolve-note" name="note" maxlength="20000" /> <label for="resolve-url">Link (optional)</label
              ><input id="resolve-url" name="url" type="url" maxlength="2048" />
              <p><button type="submit">Resolve</button></p>
            </form>
          </details>`
        : ''
    }
    ${
      wider.length > 0
        ? html`<details>
            <summary>Publish</summary>
            <form method="get" action="${action(ctx, e, 'publish')}">
              <label for="publish-scope">To</label
              ><select id="publish-scope" name="scope">
                ${wider.map((s) => html`<option value="${s}">${s}</option>`)}
              </select>
              <p><button type="submit">Preview publishing</button></p>
            </form>
          </details>`
        : ''
    }
    <details>
      <summary>Fork</summary>
      <form method="post" action="${action(ctx, e, 'fork')}">
        ${token(ctx)} <label for="fork-title">Title of the fork (optional)</label><input id="fork-title" name="title" maxlength="200" />
        <p><button type="submit">Fork</button></p>
      </form>
    </details>
    <details>
      <summary>Supersede</summary>
      <form method="post" action="${action(ctx, e, 'supersede')}">
        ${token(ctx)} <label for="supersede-by">Replaced by (an entry id)</label
        ><input id="supersede-by" name="by" required maxlength="36" class="mono" /> <label for="supersede-note">Why (optional)</label
        ><input id="supersede-note" name="note" maxlength="20000" />
        <p><button type="submit">Mark superseded</button></p>
      </form>
    </details>
  </section>`
}

/** The publish preview: what the wider audience would see, the findings and the redaction diff, before confirming. */
export function publishPage(ctx: PageContext, e: EntryFull, p: PublishPreview, error?: string): string {
  const findings =
    p.findings.length === 0
      ? html`<p class="notice" role="status">No secrets or personal data were found in what ${p.scope} readers would see.</p>`
      : html`<p class="error" role="alert">
            ${p.findings_total} ${p.findings_total === 1 ? 'finding' : 'findings'}: what looks like a secret or personal data would reach
            ${p.scope} readers.
          </p>
          <table class="findings">
            <thead>
              <tr>
                <th scope="col">Where</th>
                <th scope="col">What</th>
                <th scope="col">Excerpt (masked)</th>
              </tr>
            </thead>
            <tbody>
              ${p.findings.map(
                (f) =>
                  html`<tr>
                    <td class="mono">${f.field}:${f.line}:${f.column}</td>
                    <td>${f.label}</td>
                    <td class="mono">${f.excerpt}</td>
                  </tr>`,
              )}
            </tbody>
          </table>`
  const diff =
    p.diff.length === 0
      ? ''
      : html`<h2>What redaction would change</h2>
          <div class="diff mono" role="group" aria-label="Redaction diff">
            ${p.diff.map(
              (l) =>
                html`<div>
                  <span class="muted">${l.field}:${l.line}</span><del>− ${l.before}</del><ins>+ ${l.after ?? '(removed)'}</ins>
                </div>`,
            )}
          </div>`
  const form = (label: string, extra: Html, primary = false): Html =>
    html`<form method="post" action="${action(ctx, e, 'publish')}">
      ${token(ctx)}<input type="hidden" name="scope" value="${p.scope}" />${extra}<button
        type="submit"
        ${primary ? html` class="primary"` : ''}
      >
        ${label}
      </button>
    </form>`
  const choices =
    p.findings.length === 0
      ? form(`Publish to ${p.scope}`, html``, true)
      : html`${form(`Redact and publish to ${p.scope}`, html`<input type="hidden" name="choice" value="redact" />`, true)}
          <p class="muted">Or let these findings through as they are (recorded with your name):</p>
          ${form(
            `Publish as it is`,
            html`<input
                type="hidden"
                name="choice"
                value="acknowledge"
              />${p.findings.map((f) => html`<input type="hidden" name="acknowledge" value="${f.id}" />`)}`,
          )}`
  const body = html`<h1>Publish “${e.title}” to ${p.scope}</h1>
    ${error ? html`<p class="error" role="alert">${error}</p>` : ''}${findings}${diff}
    <div class="actions">${choices}</div>
    <p><a href="${ctx.root}/e/${e.id}">Back to the entry</a></p>`
  return page(ctx, `Publish ${e.title}`, body)
}
