/**
 * @module The post-commit git hook behind `kb hook install`: a small POSIX sh script that exits at once
 * unless the commit message mentions `Resolves-KB:`, then runs `kb hook run post-commit`, which resolves
 * each named entry with the commit as the resolution. Installing respects `core.hooksPath` and never
 * overwrites a hook kb did not write: it chains into it on request, or says what to add.
 */
import {chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {join, resolve} from 'node:path'
import {KbError} from '../../shared/errors.js'
import {canonicalRemote} from '../../shared/remote.js'
import {git} from '../project/git-config.js'
import {listRemotes} from '../project/project.js'

const HOOK_NAME = 'post-commit'
const MARKER = '# kb-hook v1'
const CHAIN_FILE = 'kb-post-commit'
const BLOCK_BEGIN = '# >>> kb hook >>>'
const BLOCK_END = '# <<< kb hook <<<'

const shQuote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`

/** The hook script; `node` and `bin` are the kb that installed it, with `kb` on PATH as the fallback. */
function hookScript(node: string, bin: string): string {
  return `#!/bin/sh
${MARKER}: resolves knowledge entries named in "Resolves-KB: <id>" commit trailers.
# Installed by \`kb hook install\`, removed by \`kb hook uninstall\`. It never blocks or fails a commit.
git log -1 --format=%B HEAD 2>/dev/null | grep -qi '^Resolves-KB:' || exit 0
KB_NODE=${shQuote(node)}
KB_BIN=${shQuote(bin)}
if [ -x "$KB_NODE" ] && [ -f "$KB_BIN" ]; then
  "$KB_NODE" "$KB_BIN" hook run ${HOOK_NAME} </dev/null || echo "kb hook: kb failed (exit $?); the Resolves-KB trailer was not applied" >&2
elif command -v kb >/dev/null 2>&1; then
  kb hook run ${HOOK_NAME} </dev/null || echo "kb hook: kb failed (exit $?); the Resolves-KB trailer was not applied" >&2
else
  echo "kb hook: kb is not installed, so the Resolves-KB trailer was not applied" >&2
fi
exit 0
`
}

/** The line to add to someone else's hook so it also runs kb's. */
function chainLine(): string {
  return `"$(dirname "$0")/${CHAIN_FILE}" || true`
}

/** The hooks directory git uses here (core.hooksPath honoured). */
async function hooksDir(cwd = process.cwd()): Promise<string> {
  const p = await git(['rev-parse', '--git-path', 'hooks'], cwd)
  if (p === null) throw new KbError('usage', 'not in a git repository: run `kb hook install` inside a checkout')
  return resolve(cwd, p)
}

type InstallOutcome = 'installed' | 'updated' | 'chained' | 'already-chained'

export interface HookInstall {
  hook: string
  outcome: InstallOutcome
}

const isShellScript = (text: string): boolean => {
  const first = text.split('\n', 1)[0] ?? ''
  return !first.startsWith('#!') || /\b(sh|bash|dash|zsh|ksh|ash)\b/.test(first)
}

export async function installHook(o: {node: string; bin: string; chain: boolean; cwd?: string}): Promise<HookInstall> {
  const dir = await hooksDir(o.cwd)
  mkdirSync(dir, {recursive: true})
  const hook = join(dir, HOOK_NAME)
  const script = hookScript(o.node, o.bin)
  if (!existsSync(hook)) {
    writeExecutable(hook, script)
    return {hook, outcome: 'installed'}
  }
  const existing = readFileSync(hook, 'utf8')
  if (existing.includes(MARKER)) {
    writeExecutable(hook, script)
    return {hook, outcome: 'updated'}
  }
  // Someone else's hook: never overwrite it.
  const chained = join(dir, CHAIN_FILE)
  if (existing.includes(BLOCK_BEGIN)) {
    writeExecutable(chained, script)
    return {hook, outcome: 'already-chained'}
  }
  // kb's own script goes beside it either way, so the one line to add works at once.
  writeExecutable(chained, script)
  if (!o.chain || !isShellScript(existing)) {
    const how = isShellScript(existing)
      ? 'rerun with `kb hook install --chain` to append it, or add it yourself'
      : 'it is not a shell script, so make it run this yourself'
    throw new KbError('conflict', `${hook} already exists and was not written by kb; ${how}:\n  ${chainLine()}`)
  }
  const sep = existing.endsWith('\n') ? '' : '\n'
  writeFileSync(hook, `${existing}${sep}${BLOCK_BEGIN}\n${chainLine()}\n${BLOCK_END}\n`)
  return {hook, outcome: 'chained'}
}

function writeExecutable(path: string, text: string): void {
  writeFileSync(path, text, {mode: 0o755})
  chmodSync(path, 0o755)
}

export interface HookUninstall {
  hook: string
  removed: boolean
  /** What was removed: kb's own hook, or kb's block in someone else's. */
  what: 'hook' | 'chain' | null
}

export async function uninstallHook(cwd?: string): Promise<HookUninstall> {
  const dir = await hooksDir(cwd)
  const hook = join(dir, HOOK_NAME)
  const chained = join(dir, CHAIN_FILE)
  let what: HookUninstall['what'] = null
  if (existsSync(hook)) {
    const text = readFileSync(hook, 'utf8')
    if (text.includes(MARKER)) {
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
  return {hook, removed: what !== null, what}
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
