/**
 * @module The web view's static files (docs/web.md, "Files"): the style sheet and the enhancement script, held in
 * modules so they ship in the package with no build step, served under a path named by their content's hash with a
 * year's cache, so a new version is a new URL.
 */
import {createHash} from 'node:crypto'
import {ENHANCE_JS} from './assets/enhance.js'
import {STYLE_CSS} from './assets/style.js'

export interface Asset {
  /** The path it is served at, below the web root. */
  path: string
  type: string
  body: string
}

function asset(name: string, type: string, body: string): Asset {
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 12)
  return {path: `/static/${hash}/${name}`, type, body}
}

export const ASSETS = {
  style: asset('kb.css', 'text/css; charset=utf-8', STYLE_CSS),
  script: asset('kb.js', 'text/javascript; charset=utf-8', ENHANCE_JS),
} as const
