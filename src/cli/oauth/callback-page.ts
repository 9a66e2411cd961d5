/**
 * @module The page the browser shows when the authorization server sends it back to kb's loopback
 * listener: plain HTML, no script, nothing loaded from elsewhere.
 */

const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

export function callbackPage(ok: boolean, title: string, message: string): string {
  const colour = ok ? '#1a7f37' : '#cf222e'
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>kb: ${escapeHtml(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:34rem;margin:4rem auto;padding:0 1rem;color:#1f2328}h1{font-size:1.4rem;color:${colour}}p{line-height:1.5}</style>
</head><body>
<h1 id="title">${escapeHtml(title)}</h1>
<p id="message">${escapeHtml(message)}</p>
<p>You can close this tab and return to the terminal.</p>
</body></html>
`
}

export const CALLBACK_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  connection: 'close',
} as const
