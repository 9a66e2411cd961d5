/**
 * @module The anchors of a project's entries as last seen, kept in the git directory so that the hook's
 * `kb check --changed-in` asks the server only about what the change touched (docs/performance.md,
 * "kb check"). It is a hint: refreshed from `GET /knowledge` newest-updated first down to what it already
 * knows (an edit of anchors moves an entry up), kept up to date from the answers to kb's own reports; an
 * anchor it says has news (changed, moved, gone) is read afresh from the server before anything is sent,
 * since a verification or someone else's check changes anchors without moving the entry up. An entry gone
 * (404) is dropped. A full `kb check` rewrites it.
 */
import {mkdirSync, readFileSync, renameSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import type {Anchor} from '../../shared/types.js'
import {sha256} from './text.js'

/** What the index keeps of an entry. */
interface IndexedEntry {
  title: string
  freshness: string | null
  anchors: Anchor[]
}

export interface AnchorIndex {
  v: 2
  base_url: string
  project_id: string
  /** The latest `updated_at` seen: a refresh reads entries down to it. */
  high: string | null
  entries: Record<string, IndexedEntry>
}

/** The index file of this base URL and project inside `gitDir` (the common one, shared by worktrees). */
export function indexPath(gitDir: string, baseUrl: string, projectId: string): string {
  return join(gitDir, 'kb', `anchors-${sha256(`${baseUrl}\n${projectId}`).slice(0, 16)}.json`)
}

export function readIndex(file: string, baseUrl: string, projectId: string): AnchorIndex | null {
  try {
    const x = JSON.parse(readFileSync(file, 'utf8')) as AnchorIndex
    return x.v === 2 && x.base_url === baseUrl && x.project_id === projectId && typeof x.entries === 'object' ? x : null
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
    .filter(([, e]) => e.anchors.some((a) => paths.has(a.path)))
    .map(([id]) => id)
}
