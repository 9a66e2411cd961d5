/**
 * @module The check of anchors against a checkout (docs/cli.md, "kb check"): for each anchor, the file at
 * its path in the work tree or at a revision, else where git's rename detection (`git diff -M` from the
 * commit it was anchored at) says it went; the anchored text hashed there; when it differs, the anchored
 * lines searched for in the file (they moved); what is left is `changed`, and a file that is gone `deleted`.
 * Pure of the server: it takes entries and returns what to report.
 */
import {readFile} from 'node:fs/promises'
import {join} from 'node:path'
import type {AnchorCheckBody} from '../../shared/schemas.js'
import type {Anchor} from '../../shared/types.js'
import {insideRepo} from './spec.js'
import {anchoredText, findLines, parseLines, sha256, splitLines} from './text.js'
import {readBlobs, treeChanges, type TreeChanges} from './git.js'

type AnchorResult = AnchorCheckBody['results'][number]

/** One anchor's outcome: what to report (`result`), and whether it differs from what the server holds. */
export interface AnchorOutcome {
  anchor: Anchor
  result: AnchorResult
  /** The state, place or hash differs from the stored anchor: worth reporting. */
  news: boolean
  /** Not checked: made at a commit the checked one does not descend from (the result is the stored state). */
  skipped: boolean
}

export interface EntryAnchors {
  id: string
  anchors: Anchor[]
}

export interface CheckOptions {
  /** The repository's top directory. */
  root: string
  /** The revision to check against; null: the work tree. */
  rev: string | null
  /** Anchor commits to leave alone (git.ts notAncestors). */
  skip?: Set<string>
}

/** Reads files of one revision (or the work tree), every blob of a batch in one `git cat-file`. */
class Reader {
  private cache = new Map<string, string | null>()
  constructor(
    private root: string,
    private rev: string | null,
  ) {}

  async load(paths: Iterable<string>): Promise<void> {
    const want = [...new Set(paths)].filter((p) => !this.cache.has(p))
    if (this.rev === null) {
      await Promise.all(
        want.map(async (p) => {
          try {
            this.cache.set(p, await readFile(join(this.root, p), 'utf8'))
          } catch {
            this.cache.set(p, null)
          }
        }),
      )
      return
    }
    const blobs = await readBlobs(
      this.root,
      want.map((p) => `${this.rev}:${p}`),
    )
    for (const p of want) this.cache.set(p, blobs.get(`${this.rev}:${p}`) ?? null)
  }

  get(path: string): string | null {
    return this.cache.get(path) ?? null
  }
}

/** Checks the anchors of `entries`; the outcomes per entry id, in the entries' and anchors' order. */
export async function checkAnchors(entries: EntryAnchors[], o: CheckOptions): Promise<Map<string, AnchorOutcome[]>> {
  // A path from the server is read only when it stays inside the repository (the API refuses others; a
  // server that sent one anyway learns nothing of files elsewhere).
  const skipped = (a: Anchor): boolean => !insideRepo(a.path) || (a.commit !== null && (o.skip?.has(a.commit) ?? false))
  const all = entries.flatMap((e) => e.anchors).filter((a) => !skipped(a))
  const now = new Reader(o.root, o.rev)
  await now.load(all.map((a) => a.path))
  // Renames: one `git diff -M` per distinct commit the missing files were anchored at.
  const changes = new Map<string, TreeChanges | null>()
  const commits = new Set(all.filter((a) => a.commit && now.get(a.path) === null).map((a) => a.commit!))
  await Promise.all([...commits].map(async (c) => changes.set(c, await treeChanges(o.root, c, o.rev))))
  const target = (a: Anchor): string | null => {
    if (now.get(a.path) !== null) return a.path
    return (a.commit && changes.get(a.commit)?.renamed.get(a.path)) || null
  }
  await now.load(all.map(target).filter((p): p is string => p !== null && p !== undefined))
  // The anchored text as it was, for the lines whose hash no longer matches where they were: to find them elsewhere.
  const old = new Map<Anchor, string | null>()
  const lost = all.filter((a) => {
    const p = target(a)
    return p !== null && a.lines && a.hash && a.commit && sha256(anchoredText(now.get(p)!, a).text) !== a.hash
  })
  const blobs = await readBlobs(
    o.root,
    lost.map((a) => `${a.commit}:${a.path}`),
  )
  for (const a of lost) old.set(a, blobs.get(`${a.commit}:${a.path}`) ?? null)
  const out = new Map<string, AnchorOutcome[]>()
  for (const e of entries)
    out.set(
      e.id,
      e.anchors.map((a): AnchorOutcome => {
        if (skipped(a))
          return {anchor: a, result: {path: a.path, lines: a.lines, symbol: a.symbol, state: 'current'}, news: false, skipped: true}
        const p = target(a)
        return outcome(a, p, p === null ? null : now.get(p), old.get(a) ?? null)
      }),
    )
  return out
}

/** One anchor's outcome, given where its file is now (null: gone), that file's text, and its text at the anchor's commit. */
function outcome(a: Anchor, path: string | null, content: string | null, before: string | null): AnchorOutcome {
  const key = {path: a.path, lines: a.lines, symbol: a.symbol}
  const result = (r: Omit<AnchorResult, 'path' | 'lines' | 'symbol'>): AnchorOutcome => {
    const full: AnchorResult = {...key, ...r}
    const moved = r.moved_to !== undefined && r.moved_to !== null
    // A `moved` anchor found intact where it now points is as it was reported: nothing new to say.
    const same = r.state === a.state || (a.state === 'moved' && r.state === 'current')
    const news = !same || moved || (r.hash !== undefined && r.hash !== a.hash)
    return {anchor: a, result: full, news, skipped: false}
  }
  if (path === null || content === null) return result({state: 'deleted'})
  const here = anchoredText(content, a)
  const hash = sha256(here.text)
  // Never anchored in a checkout (no hash yet): what is there now becomes the anchored text.
  if (!a.hash) return path === a.path ? result({state: 'current', hash}) : result({state: 'moved', moved_to: {path, lines: a.lines}, hash})
  if (hash === a.hash) return path === a.path ? result({state: 'current'}) : result({state: 'moved', moved_to: {path, lines: a.lines}})
  if (a.lines) {
    const [x, y] = parseLines(a.lines)
    const first = before === null ? undefined : splitLines(before)[x - 1]
    const found = findLines(splitLines(content), y - x + 1, a.hash, x, first)
    if (found) {
      const lines = `${found[0]}-${found[1]}`
      if (path !== a.path || lines !== a.lines) return result({state: 'moved', moved_to: {path, lines}})
    }
  }
  return result({state: 'changed'})
}
