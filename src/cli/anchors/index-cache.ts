/**
 * @module Which entries of a project have anchors on which files, kept in the git directory so that the hook's
 * `kb check --changed-in` asks the server only about the entries the change touched (docs/performance.md,
 * "kb check"). It is a hint, refreshed from `GET /knowledge` newest-updated first down to what it already
 * knows (an edit of anchors moves an entry up); the entries it names are read afresh before they are checked,
 * and one gone (404) is dropped. A full `kb check` rewrites it.
 */
import {mkdirSync, readFileSync, renameSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {sha256} from './text.js'

export interface AnchorIndex {
  v: 1
  base_url: string
  project_id: string
  /** The latest `updated_at` seen: a refresh reads entries down to it. */
  high: string | null
  /** Entry id → the paths its anchors are on. */
  entries: Record<string, string[]>
}

/** The index file of this base URL and project inside `gitDir` (the common one, shared by worktrees). */
export function indexPath(gitDir: string, baseUrl: string, projectId: string): string {
  return join(gitDir, 'kb', `anchors-${sha256(`${baseUrl}\n${projectId}`).slice(0, 16)}.json`)
}

export function readIndex(file: string, baseUrl: string, projectId: string): AnchorIndex | null {
  try {
    const x = JSON.parse(readFileSync(file, 'utf8')) as AnchorIndex
    return x.v === 1 && x.base_url === baseUrl && x.project_id === projectId && typeof x.entries === 'object' ? x : null
  } catch {
    return null
  }
}

/** Written aside and renamed over: a hook's check and a hand-run one never leave half a file. */
export function writeIndex(file: string, index: AnchorIndex): void {
  try {
    mkdirSync(join(file, '..'), {recursive: true})
    const tmp = `${file}.${process.pid}.tmp`
    writeFileSync(tmp, JSON.stringify(index))
    renameSync(tmp, file)
  } catch {
    // Only a hint: without it the next check lists the project again.
  }
}

/** The entries that have an anchor on one of `paths`. */
export function entriesOn(index: AnchorIndex, paths: Set<string>): string[] {
  return Object.entries(index.entries)
    .filter(([, p]) => p.some((x) => paths.has(x)))
    .map(([id]) => id)
}
