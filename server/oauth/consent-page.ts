/**
 * @module The HTML of the authorization endpoint: the consent page (a plain form, no JavaScript) and the
 * error page shown when the request cannot safely redirect back to the client. Everything is escaped.
 */
import {GRANT_TTL_MS} from './config.js'

const GRANT_DAYS = Math.round(GRANT_TTL_MS / 86_400_000)

export interface ConsentView {
  /** Where the form posts (the authorization endpoint). */
  action: string
  requestId: string
  csrfToken: string
  clientId: string
  clientName: string | undefined
  clientUri: string | undefined
  /** The redirect target as shown: a host, or an app's scheme. */
  redirectTo: string
  resource: string
  /** Set when the page is shown again after a failed sign-in. */
  error?: string
}

/** Headers every page of the endpoint carries: not cached, not framed, nothing loaded from elsewhere. */
export const PAGE_HEADERS: Record<string, string> = {
  'Cache-Control': 'no-store',
  Pragma: 'no-cache',
  'X-Frame-Options': 'DENY',
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
}

/**
 * Escaped for HTML, with what would make text read other than it is shown as U+FFFD: controls (C0, C1),
 * marks and overrides of direction (a client named `evil\u202Eelgoog` would read as "google…"), and invisible
 * characters (zero-width spaces and joiners, soft hyphen, BOM).
 */
function escapeHtml(text: string): string {
  return text.replace(/[&<>"']|[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]/g, (c) =>
    c.length === 1 && '&<>"\''.includes(c) ? {'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;'}[c]! : '\ufffd',
  )
}

const STYLE = `
  body { font: 16px/1.5 system-ui, sans-serif; margin: 0; background: #f4f5f7; color: #1d1f23; }
  main { max-width: 30rem; margin: 4rem auto; background: #fff; padding: 2rem; border-radius: 8px; box-shadow: 0 1px 4px rgba(0,0,0,.12); }
  h1 { font-size: 1.35rem; margin-top: 0; }
  code, .mono { font-family: ui-monospace, monospace; font-size: .9em; word-break: break-all; }
  label { display: block; font-weight: 600; margin: 1.25rem 0 .35rem; }
  input[type=password] { width: 100%; box-sizing: border-box; padding: .55rem; font: inherit; border: 1px solid #9aa0a6; border-radius: 4px; }
  .buttons { display: flex; gap: .75rem; margin-top: 1.25rem; }
  button { font: inherit; padding: .55rem 1.3rem; border-radius: 4px; border: 1px solid #9aa0a6; background: #fff; cursor: pointer; }
  button.approve { background: #1a7f37; border-color: #1a7f37; color: #fff; }
  .error { background: #fde8e8; border: 1px solid #e0a0a0; padding: .6rem .8rem; border-radius: 4px; }
  .note { color: #5f6368; font-size: .9rem; }
`

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body><main>
${body}
</main></body>
</html>
`
}

export function renderConsentPage(v: ConsentView): string {
  const name = v.clientName?.trim() ? v.clientName.trim() : 'An unnamed application'
  const site = v.clientUri
    ? `<p class="note">It says it is from <span class="mono">${escapeHtml(v.clientUri)}</span> (not verified).</p>`
    : ''
  const error = v.error ? `<p class="error" role="alert">${escapeHtml(v.error)}</p>` : ''
  return page(
    `Allow ${name} to use kb?`,
    `<h1>Allow <span id="client-name">${escapeHtml(name)}</span> to use your kb?</h1>
<p>It will act as you on <span class="mono">${escapeHtml(v.resource)}</span>, with what the API key you paste may do:</p>
<ul id="can">
<li>search and read the knowledge you can see;</li>
<li>add entries, and change, comment on, resolve, publish, fork and delete them as you may;</li>
<li>only in the project the key is bound to, if it is bound to one.</li>
</ul>
<p id="cannot">It cannot create API keys, take a backup, export everything, or use the owner's powers.
It keeps this access for at most ${GRANT_DAYS} days, and loses it as soon as you revoke it (<code>kb auth grants</code>,
<code>kb auth revoke-grant</code>) or revoke the key you paste.</p>
<p>Afterwards you will be sent to <strong id="redirect-host" class="mono">${escapeHtml(v.redirectTo)}</strong>.</p>
${site}<p class="note">Client id <span class="mono">${escapeHtml(v.clientId)}</span>. Approve only if you started this sign-in yourself.</p>
${error}<form method="post" action="${escapeHtml(v.action)}" autocomplete="off">
<input type="hidden" name="request_id" value="${escapeHtml(v.requestId)}">
<input type="hidden" name="csrf_token" value="${escapeHtml(v.csrfToken)}">
<label for="api_key">Your kb API key</label>
<input type="password" id="api_key" name="api_key" placeholder="kb_…" autocomplete="off" spellcheck="false">
<p class="note">Paste an API key to prove who you are (e.g. from <code>owner.key</code> or <code>kb api-keys create</code>). It is not given to the application.</p>
<div class="buttons">
<button type="submit" name="decision" value="approve" class="approve">Approve</button>
<button type="submit" name="decision" value="deny">Deny</button>
</div>
</form>`,
  )
}

export function renderErrorPage(title: string, message: string): string {
  return page(
    title,
    `<h1>${escapeHtml(title)}</h1>
<p class="error" role="alert">${escapeHtml(message)}</p>
<p class="note">Nothing was shared with the application. Start the sign-in again from the application.</p>`,
  )
}
