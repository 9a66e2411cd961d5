/**
 * @module Anchor specs as people type them (`path`, `path:a-b`, `path:a`, `path#symbol`), made relative to
 * the repository root, and the one way kb names an anchor in words (docs/cli.md, "Anchors").
 */
import {isAbsolute, relative, resolve, sep} from 'node:path'
import {ANCHOR_PATH_MAX, ANCHOR_SYMBOL_MAX} from '../../shared/contract.js'
import {KbError} from '../../shared/errors.js'

/** Where an anchor points, before a checkout fills in its commit and hash. */
export interface AnchorPlace {
  path: string
  lines: string | null
  symbol: string | null
}

/** The line range a `:a-b` or `:a` suffix names, or null when the text after the last `:` is not one. */
function lineRange(s: string): string | null {
  const m = /^([1-9][0-9]{0,8})(?:-([1-9][0-9]{0,8}))?$/.exec(s)
  if (!m) return null
  const a = Number(m[1])
  const b = m[2] === undefined ? a : Number(m[2])
  if (b < a) throw new KbError('usage', `--anchor: the line range ${s} ends before it starts; write it as a-b with a ≤ b`)
  return `${a}-${b}`
}

/** `src/db/pool.ts:40-62` → {path, lines: "40-62"}; `pool.ts#connect` → {path, symbol}. The path as given. */
export function parseAnchorSpec(spec: string): AnchorPlace {
  const s = spec.trim()
  if (s === '') throw new KbError('usage', '--anchor: give a path, path:a-b or path#symbol')
  const hash = s.lastIndexOf('#')
  if (hash > 0) {
    const symbol = s.slice(hash + 1)
    if (symbol === '' || /\s/.test(symbol) || symbol.length > ANCHOR_SYMBOL_MAX)
      throw new KbError(
        'usage',
        `--anchor ${spec}: the symbol after # must be one name without spaces (at most ${ANCHOR_SYMBOL_MAX} characters)`,
      )
    return {path: s.slice(0, hash), lines: null, symbol}
  }
  const colon = s.lastIndexOf(':')
  if (colon > 0) {
    const lines = lineRange(s.slice(colon + 1))
    if (lines !== null) return {path: s.slice(0, colon), lines, symbol: null}
  }
  return {path: s, lines: null, symbol: null}
}

/**
 * A path given on the command line (relative to `cwd`, or absolute) as the `/`-separated path relative to
 * the repository root the API stores; refused (exit 2) when it leaves the repository.
 */
export function rootRelative(path: string, cwd: string, root: string): string {
  const abs = isAbsolute(path) ? path : resolve(cwd, path)
  const rel = relative(root, abs).split(sep).join('/')
  if (rel === '' || rel.startsWith('../') || rel === '..' || isAbsolute(rel))
    throw new KbError('usage', `--anchor ${path}: not a file inside this repository (${root})`)
  if (rel.length > ANCHOR_PATH_MAX) throw new KbError('usage', `--anchor ${path}: the path is longer than ${ANCHOR_PATH_MAX} characters`)
  return rel
}

/** `path:a-b`, `path#symbol` or `path`: how kb writes an anchor in messages and matches `--remove-anchor`. */
export function anchorLabel(a: {path: string; lines?: string | null; symbol?: string | null}): string {
  return a.lines ? `${a.path}:${a.lines}` : a.symbol ? `${a.path}#${a.symbol}` : a.path
}

/** Whether two anchors are the same place (the API matches anchors by path, lines and symbol). */
export function samePlace(a: {path: string; lines?: string | null; symbol?: string | null}, b: typeof a): boolean {
  return a.path === b.path && (a.lines ?? null) === (b.lines ?? null) && (a.symbol ?? null) === (b.symbol ?? null)
}

/** A root-relative, `/`-separated path without `.` or `..` segments, backslashes or control characters. */
export function insideRepo(path: string): boolean {
  if (path === '' || path.startsWith('/') || /[\\\u0000-\u001f]/.test(path)) return false
  return path.split('/').every((seg) => seg !== '' && seg !== '.' && seg !== '..')
}
