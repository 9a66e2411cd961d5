/**
 * @module The git hooks behind `kb hook install` (scripts in scripts.ts): post-commit, post-merge and
 * post-checkout start `kb check --changed-in …` in the background; post-commit also runs `kb hook run
 * post-commit` when the message has a `Resolves-KB:` trailer, which resolves each named entry with the commit.
 * Installing respects `core.hooksPath` and never overwrites a hook kb did not write: it chains into it on
 * request, or says what to add.
 */
import {chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {join, resolve} from 'node:path'
import {KbError} from '../../shared/errors.js'
import {canonicalRemote} from '../../shared/remote.js'
import {git} from '../project/git-config.js'
import {listRemotes} from '../project/project.js'
import {HOOK_NAMES, hookScript, MARKER_PREFIX, type HookName} from './scripts.js'

const BLOCK_BEGIN = '# >>> kb hook >>>'
const BLOCK_END = '# <<< kb hook <<<'

/** The file kb's script goes to beside someone else's hook, and the line that runs it from theirs. */
const chainFile = (name: HookName): string => `kb-${name}`
function chainLine(name: HookName): string {
  return `"$(dirname "$0")/${chainFile(name)}" "$@" || true`
}

/** The hooks directory git uses here (core.hooksPath honoured). */
async function hooksDir(cwd = process.cwd()): Promise<string> {
  const p = await git(['rev-parse', '--git-path', 'hooks'], cwd)
  if (p === null) throw new KbError('usage', 'not in a git repository: run `kb hook install` inside a checkout')
  return resolve(cwd, p)
}

type InstallOutcome = 'installed' | 'updated' | 'chained' | 'already-chained'

export interface HookInstall {
  /** The post-commit hook, and what became of it (as before there were three). */
  hook: string
  outcome: InstallOutcome
  hooks: {name: HookName; hook: string; outcome: InstallOutcome}[]
}

const isShellScript = (text: string): boolean => {
  const first = text.split('\n', 1)[0] ?? ''
  return !first.startsWith('#!') || /\b(sh|bash|dash|zsh|ksh|ash)\b/.test(first)
}

/**
 * Installs post-commit, post-merge and post-checkout. Someone else's hook is never overwritten: kb's script
 * goes beside it and, with `chain`, one line calling it is appended to theirs; without, the others are
 * installed and kb exits 5 naming the line to add.
 */
export async function installHook(o: {node: string; bin: string; chain: boolean; cwd?: string}): Promise<HookInstall> {
  const dir = await hooksDir(o.cwd)
  mkdirSync(dir, {recursive: true})
  const hooks: HookInstall['hooks'] = []
  const refused: string[] = []
  for (const name of HOOK_NAMES) {
    const r = installOne(dir, name, hookScript(name, o.node, o.bin), o.chain)
    if (typeof r === 'object') refused.push(r.refused)
    else hooks.push({name, hook: join(dir, name), outcome: r})
  }
  if (refused.length > 0) throw new KbError('conflict', refused.join('; '))
  return {hook: hooks[0]!.hook, outcome: hooks[0]!.outcome, hooks}
}

/** One hook installed, or why it was not (someone else's hook, no --chain). */
function installOne(dir: string, name: HookName, script: string, chain: boolean): InstallOutcome | {refused: string} {
  const hook = join(dir, name)
  if (!existsSync(hook)) {
    writeExecutable(hook, script)
    return 'installed'
  }
  const existing = readFileSync(hook, 'utf8')
  if (existing.includes(MARKER_PREFIX)) {
    writeExecutable(hook, script)
    return 'updated'
  }
  // kb's own script goes beside it either way, so the one line to add works at once.
  writeExecutable(join(dir, chainFile(name)), script)
  if (existing.includes(BLOCK_BEGIN)) {
    // Chained by an older kb without "$@": post-checkout needs git's arguments.
    if (!existing.includes(chainLine(name)))
      writeFileSync(hook, existing.replace(/"\$\(dirname "\$0"\)\/kb-[a-z-]+" \|\| true/, chainLine(name)))
    return 'already-chained'
  }
  if (!chain || !isShellScript(existing)) {
    const how = isShellScript(existing)
      ? 'rerun with `kb hook install --chain` to append it, or add it yourself'
      : 'it is not a shell script, so make it run this yourself'
    return {refused: `${hook} already exists and was not written by kb; ${how}:\n  ${chainLine(name)}`}
  }
  const sep = existing.endsWith('\n') ? '' : '\n'
  writeFileSync(hook, `${existing}${sep}${BLOCK_BEGIN}\n${chainLine(name)}\n${BLOCK_END}\n`)
  return 'chained'
}

function writeExecutable(path: string, text: string): void {
  writeFileSync(path, text, {mode: 0o755})
  chmodSync(path, 0o755)
}

type Removed = 'hook' | 'chain' | null

export interface HookUninstall {
  /** The post-commit hook and what was removed of it (as before there were three). */
  hook: string
  removed: boolean
  what: Removed
  hooks: {name: HookName; hook: string; removed: boolean; what: Removed}[]
}

export async function uninstallHook(cwd?: string): Promise<HookUninstall> {
  const dir = await hooksDir(cwd)
  const hooks = HOOK_NAMES.map((name) => {
    const what = uninstallOne(dir, name)
    return {name, hook: join(dir, name), removed: what !== null, what}
  })
  const first = hooks[0]!
  return {hook: first.hook, removed: first.removed, what: first.what, hooks}
}

function uninstallOne(dir: string, name: HookName): Removed {
  const hook = join(dir, name)
  const chained = join(dir, chainFile(name))
  let what: Removed = null
  if (existsSync(hook)) {
    const text = readFileSync(hook, 'utf8')
    if (text.includes(MARKER_PREFIX)) {
      rmSync(hook)
      what = 'hook'
    } else if (text.includes(BLOCK_BEGIN)) {
      const re = new RegExp(`\\n?${escape(BLOCK_BEGIN)}\\n[\\s\\S]*?${escape(BLOCK_END)}\\n?`, 'g')
      writeFileSync(hook, text.replace(re, '\n').replace(/\n+$/, '\n'))
      what = 'chain'
    }
  }
  if (existsSync(chained)) {
    rmSync(chained)
    what ??= 'chain'
  }
  return what
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

export interface CommitInfo {
  sha: string
  short: string
  subject: string
  ids: string[]
}

/** HEAD's sha, subject and the ids of its `Resolves-KB` trailers (several trailers, or comma-separated). */
export async function headCommit(cwd?: string): Promise<CommitInfo | null> {
  const out = await git(['log', '-1', '--format=%H%n%h%n%s%n%(trailers:key=Resolves-KB,valueonly,separator=%x2C)', 'HEAD'], cwd)
  if (out === null) return null
  const [sha = '', short = '', subject = '', trailers = ''] = out.split('\n')
  const ids = [
    ...new Set(
      trailers
        .split(/[,\s]+/)
        .map((s) => s.trim().toLowerCase())
        .filter(Boolean),
    ),
  ]
  return {sha, short, subject, ids}
}

/** The commit's web page when the remote is on a known forge (GitHub, GitLab, Bitbucket, Gitea-style). */
export function commitWebUrl(remote: string, sha: string): string | null {
  const canonical = canonicalRemote(remote)
  if (!canonical) return null
  const host = canonical.split('/', 1)[0]!
  const base = `https://${canonical}`
  if (/(^|\.)github\.com$|github/.test(host)) return `${base}/commit/${sha}`
  if (/gitlab/.test(host)) return `${base}/-/commit/${sha}`
  if (/bitbucket/.test(host)) return `${base}/commits/${sha}`
  if (/gitea|forgejo|codeberg|gogs/.test(host)) return `${base}/commit/${sha}`
  return null
}

/** The remote a commit links to: the first with a known forge, in the order every kb command uses (docs/cli.md, "The project of a checkout"). */
export async function commitRemoteUrl(sha: string, cwd?: string): Promise<string | null> {
  let remotes
  try {
    remotes = await listRemotes(cwd)
  } catch {
    return null
  }
  for (const r of remotes) {
    const url = commitWebUrl(r.url, sha)
    if (url) return url
  }
  return null
}
