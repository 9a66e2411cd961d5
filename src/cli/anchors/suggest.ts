/**
 * @module Anchors a body suggests: repository paths it mentions (`src/db/pool.ts`, `src/db/pool.ts:40-62`)
 * that exist in the checkout. kb only proposes them (docs/cli.md, "Anchors"); `--anchor-suggested` keeps them.
 */
import {statSync} from 'node:fs'
import {join} from 'node:path'
import {ANCHORS_MAX} from '../../shared/contract.js'

/** A path-like word, with an optional `:a` or `:a-b`; each class is followed by something it cannot match, so no backtracking. */
const MENTION = /[A-Za-z0-9_][A-Za-z0-9_./-]*(?::([1-9][0-9]{0,8})(?:-([1-9][0-9]{0,8}))?)?/g

/** Whether `body` has a word that could be a path (a `/` or a `.` between word characters): else no git is asked. */
export function mentionsPath(body: string): boolean {
  return /\w[/.]\w/.test(body)
}

/** The specs (`path` or `path:a-b`) of files under `root` that `body` mentions, in order, each once. */
export function suggestAnchors(body: string, root: string, isFile: (path: string) => boolean = fileAt(root)): string[] {
  const out: string[] = []
  const seen = new Set<string>()
  for (const m of body.matchAll(MENTION)) {
    const word = m[0]
    const colon = m[1] === undefined ? word.length : word.lastIndexOf(':')
    let path = word.slice(0, colon)
    while (path.endsWith('.') || path.endsWith('/')) path = path.slice(0, -1)
    if (path.startsWith('./')) path = path.slice(2)
    // A path has a directory or an extension; `..` would leave the repository.
    if (!/[/.]/.test(path) || path.split('/').some((s) => s === '..' || s === '.' || s === '')) continue
    const a = m[1] === undefined ? null : Number(m[1])
    const b = m[2] === undefined ? a : Number(m[2])
    const spec = a !== null && b !== null && b >= a ? `${path}:${a}-${b}` : path
    if (seen.has(spec) || !isFile(path)) continue
    seen.add(spec)
    out.push(spec)
    if (out.length >= ANCHORS_MAX) break
  }
  return out
}

function fileAt(root: string): (path: string) => boolean {
  return (path) => {
    try {
      return statSync(join(root, path)).isFile()
    } catch {
      return false
    }
  }
}
