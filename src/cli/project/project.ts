/**
 * @module The project of the current directory. `--project` / KB_PROJECT (an id or a canonical remote)
 * win; else `git config kb.project`, written by `kb project join` and read straight from the repository's
 * config file on the hot path; the remote listing behind `kb project join` uses simple-git, imported lazily.
 */
import {execFile} from 'node:child_process'
import {readFileSync, statSync} from 'node:fs'
import {dirname, join, resolve} from 'node:path'
import {KbError} from '../../shared/errors.js'
import {UUID_PATTERN} from '../../shared/contract.js'
import {canonicalRemote} from '../../shared/remote.js'
import type {ApiClient} from '../../shared/client.js'

const UUID = new RegExp(UUID_PATTERN)

export function isUuid(s: string): boolean {
  return UUID.test(s)
}

/** `git <args>` in `cwd`: stdout trimmed, or null when git fails or is missing. */
export function git(args: string[], cwd = process.cwd()): Promise<string | null> {
  return new Promise((resolve) => {
    execFile('git', args, {cwd, encoding: 'utf8', windowsHide: true}, (err, stdout) => resolve(err ? null : stdout.trim()))
  })
}

/** The repository's git dir: `.git` in `cwd` or above (a directory, or a worktree's `gitdir:` file). */
function findGitDir(cwd: string, env: NodeJS.ProcessEnv): string | null {
  if (env.GIT_DIR) return resolve(cwd, env.GIT_DIR)
  for (let dir = cwd; ; dir = dirname(dir)) {
    const dotGit = join(dir, '.git')
    try {
      if (statSync(dotGit).isDirectory()) return dotGit
      const m = /^gitdir:\s*(.+)$/m.exec(readFileSync(dotGit, 'utf8'))
      return m ? resolve(dir, m[1]!.trim()) : null
    } catch {
      // not here
    }
    if (dirname(dir) === dir) return null
  }
}

/**
 * `kb.project` from the repository's own config file, read directly: spawning `git config` from a
 * Node process costs tens of ms on every command. Returns undefined when the file uses something this
 * small reader does not follow (includes), so the caller asks git.
 */
function readKbProject(gitDir: string): string | null | undefined {
  let dir = gitDir
  try {
    const common = readFileSync(join(gitDir, 'commondir'), 'utf8').trim()
    dir = resolve(gitDir, common)
  } catch {
    // not a linked worktree
  }
  let text: string
  try {
    text = readFileSync(join(dir, 'config'), 'utf8')
  } catch {
    return null
  }
  if (/^\s*\[\s*include/im.test(text)) return undefined
  let section = ''
  let value: string | null = null
  for (const raw of text.split('\n')) {
    const line = raw.trim()
    const head = /^\[\s*([A-Za-z0-9.-]+)(\s+"[^"]*")?\s*\]/.exec(line)
    if (head) {
      section = head[2] ? '' : head[1]!.toLowerCase()
      continue
    }
    const kv = /^([A-Za-z][A-Za-z0-9-]*)\s*=\s*(.*?)\s*(?:[#;].*)?$/.exec(line)
    if (section === 'kb' && kv && kv[1]!.toLowerCase() === 'project') value = kv[2]!.replace(/^"(.*)"$/, '$1')
  }
  return value
}

export interface ProjectRef {
  /** A project id, or a canonical remote to look up. */
  ref: string
  source: 'flag' | 'env' | 'git'
}

/** Where the project comes from, before asking the server anything. Null outside a joined repository. */
export async function projectRef(
  flag: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
  cwd = process.cwd(),
): Promise<ProjectRef | null> {
  if (flag) return {ref: flag.trim(), source: 'flag'}
  if (env.KB_PROJECT) return {ref: env.KB_PROJECT.trim(), source: 'env'}
  const gitDir = findGitDir(cwd, env)
  if (!gitDir) return null
  const direct = readKbProject(gitDir)
  const stored = direct === undefined ? await git(['config', '--get', 'kb.project'], cwd) : direct
  return stored ? {ref: stored, source: 'git'} : null
}

/** An id as is; a remote (any git form) → the id of the caller's project with that canonical remote. */
export async function resolveProjectId(ref: ProjectRef, client: ApiClient): Promise<string> {
  if (isUuid(ref.ref)) return ref.ref.toLowerCase()
  // The canonical form itself (github.com/acme/api) has no scheme, so canonicalRemote() would not take it.
  const canonical = /^[^/:@\s]+(\/[^/\s]+)+$/.test(ref.ref) ? ref.ref.toLowerCase().replace(/\.git$/, '') : canonicalRemote(ref.ref)
  const from = ref.source === 'flag' ? '--project' : ref.source === 'env' ? 'KB_PROJECT' : 'git config kb.project'
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
export async function listRemotes(cwd = process.cwd()): Promise<Remote[]> {
  const {simpleGit} = await import('simple-git')
  const repo = simpleGit({baseDir: cwd})
  const remotes = await repo.getRemotes(true)
  const rank = (n: string): number => (n === 'upstream' ? 0 : n === 'origin' ? 1 : 2)
  return remotes
    .map((r) => ({name: r.name, url: r.refs.fetch || r.refs.push}))
    .filter((r) => r.url)
    .sort((a, b) => rank(a.name) - rank(b.name) || a.name.localeCompare(b.name))
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
