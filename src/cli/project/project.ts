/**
 * @module The project of a checkout — one rule for every command, the git hook, `kb mcp` and `kb browse`
 * (docs/cli.md, "The project of a checkout"): `--project`, else KB_PROJECT, else the project `kb project
 * join` stored for this server (`git config kb.<base URL>.project`), else the first of the checkout's
 * remotes, in gh's order, that is one of the caller's projects on that server.
 */
import {KbError} from '../../shared/errors.js'
import {UUID_PATTERN} from '../../shared/contract.js'
import {canonicalRemote} from '../../shared/remote.js'
import type {ApiClient} from '../../shared/client.js'
import type {Project} from '../../shared/types.js'
import {git, repoConfig, type ConfigEntry} from './git-config.js'

const UUID = new RegExp(UUID_PATTERN)

export function isUuid(s: string): boolean {
  return UUID.test(s)
}

export interface ProjectRef {
  /** A project id, or a canonical remote to look up (for source `remote`, the checkout's first one). */
  ref: string
  source: 'flag' | 'env' | 'git' | 'remote'
  /** Source `remote`: the checkout's canonical remotes in gh's order; the first that is a project of the caller's wins. */
  remotes?: string[]
}

/** The git config key `kb project join` stores the project in: one per server, so none goes stale when the base URL changes. */
export function projectConfigKey(baseUrl: string): string {
  return `kb.${baseUrl}.project`
}

/** Where a project ref came from, as an error or `kb project show` names it. */
export function refSource(ref: ProjectRef, baseUrl: string): string {
  if (ref.source === 'flag') return '--project'
  if (ref.source === 'env') return 'KB_PROJECT'
  if (ref.source === 'git') return `git config ${projectConfigKey(baseUrl)}`
  return `git remote ${ref.remotes!.join(', ')}`
}

/** The remotes of config entries in gh's order: upstream, origin, then the others by name (the first URL of each). */
function remotesOf(entries: ConfigEntry[]): Remote[] {
  const urls = new Map<string, string>()
  for (const e of entries)
    if (e.section === 'remote' && e.subsection !== null && e.key === 'url' && e.value && !urls.has(e.subsection))
      urls.set(e.subsection, e.value)
  const rank = (n: string): number => (n === 'upstream' ? 0 : n === 'origin' ? 1 : 2)
  return [...urls]
    .map(([name, url]) => ({name, url}))
    .sort((a, b) => rank(a.name) - rank(b.name) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
}

/** Where the project comes from, before asking the server anything. Null outside a checkout with a usable remote. */
export async function projectRef(
  flag: string | undefined,
  baseUrl: string,
  env: NodeJS.ProcessEnv = process.env,
  cwd = process.cwd(),
): Promise<ProjectRef | null> {
  if (flag) return {ref: flag.trim(), source: 'flag'}
  if (env.KB_PROJECT) return {ref: env.KB_PROJECT.trim(), source: 'env'}
  const entries = await repoConfig(cwd, env)
  if (!entries) return null
  const stored = entries.findLast((e) => e.section === 'kb' && e.subsection === baseUrl && e.key === 'project')?.value
  if (stored) return {ref: stored.trim(), source: 'git'}
  const remotes = [...new Set(remotesOf(entries).map((r) => canonicalRemote(r.url)))].filter((c): c is string => c !== null)
  return remotes.length > 0 ? {ref: remotes[0]!, source: 'remote', remotes} : null
}

/** The canonical form of a ref that names a remote, or null when it is not one. */
function canonicalOf(ref: string): string | null {
  // The canonical form itself (github.com/acme/api) has no scheme, so canonicalRemote() would not take it.
  return /^[^/:@\s]+(\/[^/\s]+)+$/.test(ref) ? ref.toLowerCase().replace(/\.git$/, '') : canonicalRemote(ref)
}

/** The project among `projects` that `ref` names (for source `remote`: the first remote that matches), or null. */
export function projectIn(ref: ProjectRef, projects: Project[]): Project | null {
  if (ref.source === 'remote') {
    for (const r of ref.remotes ?? [ref.ref]) {
      const p = projects.find((x) => x.remote === r)
      if (p) return p
    }
    return null
  }
  if (isUuid(ref.ref)) return projects.find((p) => p.id === ref.ref.toLowerCase()) ?? null
  const canonical = canonicalOf(ref.ref)
  return projects.find((p) => p.remote === canonical) ?? null
}

/**
 * The project id of a ref: an id as is; a remote (any git form) → the id of the caller's project with that
 * canonical remote, or a not_found naming the fix; the checkout's remotes → the first that matches, or null
 * (no project: entries are private).
 */
export async function resolveProjectId(ref: ProjectRef, client: ApiClient, baseUrl: string): Promise<string | null> {
  if (ref.source === 'remote') return projectIn(ref, await client.listProjects())?.id ?? null
  if (isUuid(ref.ref)) return ref.ref.toLowerCase()
  const canonical = canonicalOf(ref.ref)
  const from = refSource(ref, baseUrl)
  if (!canonical) throw new KbError('usage', `${from} "${ref.ref}" is neither a project id nor a git remote (like github.com/acme/api)`)
  const match = (await client.listProjects()).find((p) => p.remote === canonical)
  if (!match)
    throw new KbError('not_found', `you are not a member of a project for ${canonical}; run \`kb project join --remote ${ref.ref}\``)
  return match.id
}

export interface Remote {
  name: string
  url: string
}

/** The repository's remotes in gh's order: upstream, origin, then the others by name. */
export async function listRemotes(cwd = process.cwd(), env: NodeJS.ProcessEnv = process.env): Promise<Remote[]> {
  return remotesOf((await repoConfig(cwd, env)) ?? [])
}

/** Is `cwd` inside a git work tree? */
export async function inGitRepo(cwd = process.cwd()): Promise<boolean> {
  return (await git(['rev-parse', '--is-inside-work-tree'], cwd)) === 'true'
}

/**
 * The remote `kb project join` uses: `--remote` as a remote name of this repository or as a URL; else
 * the first remote in gh's order whose URL has a canonical form.
 */
export async function pickRemote(
  option: string | undefined,
  cwd = process.cwd(),
): Promise<{url: string; canonical: string; name: string | null}> {
  const inRepo = await inGitRepo(cwd)
  const remotes = inRepo ? await listRemotes(cwd) : []
  if (option) {
    const named = remotes.find((r) => r.name === option)
    const url = named ? named.url : option
    const canonical = canonicalRemote(url)
    if (!canonical) {
      const hint = inRepo ? `remotes here: ${remotes.map((r) => r.name).join(', ') || 'none'}` : 'not in a git repository, so pass a URL'
      throw new KbError('usage', `--remote "${option}" is neither a remote of this repository nor a git URL (${hint})`)
    }
    return {url, canonical, name: named ? named.name : null}
  }
  if (!inRepo) throw new KbError('usage', 'not in a git repository: run `kb project join` inside a checkout, or pass --remote <url>')
  for (const r of remotes) {
    const canonical = canonicalRemote(r.url)
    if (canonical) return {url: r.url, canonical, name: r.name}
  }
  throw new KbError(
    'usage',
    'this repository has no remote with a host and path; add one (`git remote add origin <url>`) or pass --remote <url>',
  )
}
