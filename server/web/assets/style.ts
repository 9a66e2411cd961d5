/**
 * @module The web view's one style sheet (docs/web.md, "Look"): system fonts, light and dark by
 * `prefers-color-scheme`, one column that fits 360 px, visible focus. Served as a file (the CSP allows no inline style).
 */
export const STYLE_CSS = `
:root { color-scheme: light dark; --bg: #ffffff; --fg: #1d1f23; --muted: #555b63; --line: #d0d4da; --accent: #0b5cad; --panel: #f4f5f7;
  --ok: #1a7f37; --warn: #8a5300; --bad: #b42318; --mark: #fff3a3; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #16181c; --fg: #e6e8eb; --muted: #a9afb8; --line: #3a3f47; --accent: #7cb7ff; --panel: #20242a;
    --ok: #5fd07f; --warn: #f0b45a; --bad: #ff8a80; --mark: #5c4f00; }
}
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; background: var(--bg); color: var(--fg); }
a { color: var(--accent); }
a:focus-visible, button:focus-visible, input:focus-visible, select:focus-visible, textarea:focus-visible, .hit.current {
  outline: 3px solid var(--accent); outline-offset: 2px; }
.skip { position: absolute; left: -999px; }
.skip:focus { left: .5rem; top: .5rem; background: var(--bg); padding: .25rem .5rem; z-index: 1; }
header.top { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: center; padding: .6rem 1rem; border-bottom: 1px solid var(--line); background: var(--panel); }
header.top .brand { font-weight: 700; text-decoration: none; color: var(--fg); }
header.top nav { display: flex; flex-wrap: wrap; gap: .25rem .9rem; }
header.top form { margin-left: auto; }
main { max-width: 56rem; margin: 0 auto; padding: 1rem; }
h1 { font-size: 1.5rem; line-height: 1.25; margin: .5rem 0; overflow-wrap: anywhere; }
h2 { font-size: 1.2rem; margin: 1.5rem 0 .5rem; }
.muted, .meta { color: var(--muted); font-size: .9rem; }
code, pre, .mono { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: .9em; }
pre { background: var(--panel); padding: .75rem; overflow-x: auto; border-radius: 4px; }
.body { overflow-wrap: anywhere; }
.body table { border-collapse: collapse; display: block; overflow-x: auto; }
.body th, .body td { border: 1px solid var(--line); padding: .25rem .5rem; }
.align-right { text-align: right; } .align-center { text-align: center; }
blockquote { margin: 0; padding-left: 1rem; border-left: 3px solid var(--line); color: var(--muted); }
mark { background: var(--mark); color: inherit; }
.badges { display: flex; flex-wrap: wrap; gap: .4rem; margin: .25rem 0 .75rem; padding: 0; list-style: none; }
.badge { display: inline-block; border: 1px solid var(--line); border-radius: 999px; padding: 0 .6rem; font-size: .85rem; }
.badge.resolved, .badge.fresh { color: var(--ok); border-color: var(--ok); }
.badge.stale, .badge.superseded { color: var(--warn); border-color: var(--warn); }
.badge.flagged { color: var(--bad); border-color: var(--bad); }
.tags { display: flex; flex-wrap: wrap; gap: .4rem; list-style: none; padding: 0; }
.tags a { font-size: .85rem; }
form.search { display: grid; gap: .5rem; grid-template-columns: 1fr; margin: .5rem 0 1rem; }
form.search .row { display: flex; flex-wrap: wrap; gap: .5rem; align-items: end; }
label { display: block; font-weight: 600; font-size: .9rem; }
input, select, textarea, button { font: inherit; color: inherit; background: var(--bg); border: 1px solid var(--muted); border-radius: 4px; padding: .4rem .55rem; }
input[type=search], input[type=password], textarea { width: 100%; }
textarea { min-height: 6rem; }
button { cursor: pointer; background: var(--panel); }
button.primary { background: var(--accent); border-color: var(--accent); color: var(--bg); }
ol.hits { list-style: none; padding: 0; margin: 0; }
.hit { padding: .6rem .25rem; border-bottom: 1px solid var(--line); }
.hit h2 { font-size: 1.05rem; margin: 0; overflow-wrap: anywhere; }
.hit p { margin: .25rem 0; overflow-wrap: anywhere; }
.pages { display: flex; gap: 1rem; margin: 1rem 0; }
.error { background: color-mix(in srgb, var(--bad) 12%, var(--bg)); border: 1px solid var(--bad); padding: .6rem .8rem; border-radius: 4px; }
.notice { background: var(--panel); border: 1px solid var(--line); padding: .6rem .8rem; border-radius: 4px; }
section.panel { border-top: 1px solid var(--line); margin-top: 1.5rem; }
ul.plain { list-style: none; padding: 0; }
ul.plain li { padding: .3rem 0; border-bottom: 1px solid var(--line); overflow-wrap: anywhere; }
.signin { max-width: 28rem; margin: 3rem auto; }
.actions { display: grid; gap: 1rem; }
.actions details { border: 1px solid var(--line); border-radius: 4px; padding: .5rem .75rem; }
.actions summary { cursor: pointer; font-weight: 600; }
.diff > div { margin: .4rem 0; }
.diff del, .diff ins { display: block; white-space: pre-wrap; overflow-wrap: anywhere; text-decoration: none; }
table.findings { border-collapse: collapse; display: block; overflow-x: auto; }
table.findings th, table.findings td { border: 1px solid var(--line); padding: .25rem .5rem; text-align: left; }
.diff del { color: var(--bad); } .diff ins { color: var(--ok); }
@media (max-width: 30rem) { main { padding: .6rem; } h1 { font-size: 1.3rem; } }
`
