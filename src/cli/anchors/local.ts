/**
 * @module Anchors made in a checkout (docs/cli.md, "Anchors"): `--anchor` specs turned into the API's
 * `{path, lines, symbol, commit, hash}` — the path relative to the repository root, the commit HEAD, the
 * hash of the anchored text in the work tree — and an entry's anchors re-based on the checkout (`kb verify`).
 */
import {readFile} from 'node:fs/promises'
import {join, resolve} from 'node:path'
import {ANCHORS_MAX} from '../../shared/contract.js'
import {KbError} from '../../shared/errors.js'
import type {AnchorIn} from '../../shared/schemas.js'
import type {Anchor} from '../../shared/types.js'
import {gitOut, repoRoot, resolveCommit} from './git.js'
import {insideRepo, parseAnchorSpec, rootRelative, type AnchorPlace} from './spec.js'
import {suggestAnchors} from './suggest.js'
import {anchoredText, sha256, splitLines} from './text.js'

/** The checkout `cwd` is in: its top directory and HEAD (null before the first commit); null outside one. */
export interface Checkout {
  root: string
  /** The (common) git directory. */
  gitDir: string
  head: string | null
}

export async function checkoutAt(cwd = process.cwd()): Promise<Checkout | null> {
  // One git process for the usual case: top directory, git directory and HEAD together.
  try {
    const [root, gitDir, head] = (await gitOut(['rev-parse', '--show-toplevel', '--git-common-dir', '--verify', 'HEAD'], cwd))
      .trim()
      .split('\n')
    if (root && gitDir && head && /^[0-9a-f]{40,64}$/.test(head)) return {root, gitDir: resolve(cwd, gitDir), head}
  } catch {
    // Outside a repository, or no commit yet: asked one by one below.
  }
  const repo = await repoRoot(cwd)
  if (repo === null) return null
  let head: string | null = null
  try {
    head = await resolveCommit(repo.root)
  } catch {
    // A repository without commits: anchors get a hash but no commit.
  }
  return {...repo, head}
}

async function fileText(root: string, path: string): Promise<string | null> {
  try {
    return await readFile(join(root, path), 'utf8')
  } catch {
    return null
  }
}

/** One place anchored in the checkout; a file that is not there, or lines past its end, are refused (exit 2). */
async function anchorHere(place: AnchorPlace, co: Checkout, given = place.path): Promise<AnchorIn> {
  const text = await fileText(co.root, place.path)
  if (text === null) throw new KbError('usage', `--anchor ${given}: ${place.path} is not a file in this checkout (${co.root})`)
  if (place.lines) {
    const count = splitLines(text).length
    const end = Number(place.lines.split('-')[1])
    if (end > count) throw new KbError('usage', `--anchor ${given}: ${place.path} has ${count} lines, fewer than ${end}`)
  }
  return {...place, commit: co.head, hash: sha256(anchoredText(text, place).text)}
}

/**
 * `--anchor` specs as the API takes them. In a checkout each path is made root-relative and must exist;
 * outside one the paths go as written (already root-relative) with no commit or hash (state `unknown`
 * until a `kb check` in a checkout).
 */
export async function anchorsFromSpecs(specs: string[], co: Checkout | null, cwd = process.cwd()): Promise<AnchorIn[]> {
  const out: AnchorIn[] = []
  for (const spec of specs) {
    const place = parseAnchorSpec(spec)
    if (co === null) {
      out.push({...place, path: place.path.replace(/^\.\//, '')})
      continue
    }
    out.push(await anchorHere({...place, path: rootRelative(place.path, cwd, co.root)}, co, spec))
  }
  return out
}

/** The entry's anchors re-based on the checkout (HEAD, the work tree's text); files that are not here are left out. */
export async function rebaseAnchors(anchors: Anchor[], co: Checkout): Promise<AnchorIn[]> {
  const out: AnchorIn[] = []
  for (const a of anchors) {
    if (!insideRepo(a.path)) continue
    const text = await fileText(co.root, a.path)
    if (text === null) continue
    out.push({path: a.path, lines: a.lines, symbol: a.symbol, commit: co.head, hash: sha256(anchoredText(text, a).text)})
  }
  return out
}

/**
 * The anchors of a new entry: `specs`, plus the repository paths `body` mentions — proposed through `say`
 * (never silently), added only when `keepSuggested` (docs/cli.md, "Anchors").
 */
export async function anchorsForNewEntry(
  body: string,
  specs: string[],
  keepSuggested: boolean,
  say: (line: string) => void,
): Promise<AnchorIn[]> {
  const co = await checkoutAt()
  const anchors = await anchorsFromSpecs(specs, co)
  if (co === null) return anchors
  const suggested = suggestAnchors(body, co.root)
    .map((spec) => ({spec, place: parseAnchorSpec(spec)}))
    // A file already anchored (at any lines or symbol) is not proposed again.
    .filter(({place}) => !anchors.some((a) => a.path === place.path))
  if (suggested.length === 0) return anchors
  if (!keepSuggested) {
    const list = suggested.map((s) => s.spec).join(', ')
    say(`the body mentions ${list}; keep ${suggested.length === 1 ? 'it as an anchor' : 'them as anchors'} with --anchor-suggested`)
    return anchors
  }
  for (const s of suggested) anchors.push(await anchorHere(s.place, co, s.spec))
  if (anchors.length > ANCHORS_MAX)
    throw new KbError('usage', `an entry has at most ${ANCHORS_MAX} anchors; this one would have ${anchors.length}`)
  return anchors
}
