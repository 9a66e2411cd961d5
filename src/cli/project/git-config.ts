/**
 * @module The few git settings kb reads on every command (the remotes, `kb.<base URL>.project`), read
 * straight from the repository's config file: spawning `git config` from a Node process costs tens of ms.
 * A file this small reader does not follow (includes) makes the caller ask git instead.
 */
import {execFile} from 'node:child_process'
import {readFileSync, statSync} from 'node:fs'
import {dirname, join, resolve} from 'node:path'

/** `git <args>` in `cwd`: stdout trimmed, or null when git fails or is missing. */
export function git(args: string[], cwd = process.cwd()): Promise<string | null> {
  return new Promise((resolve) => {
    execFile('git', args, {cwd, encoding: 'utf8', windowsHide: true}, (err, stdout) => resolve(err ? null : stdout.trim()))
  })
}

/** One `key = value` of a config file: section lower-cased, subsection as written, key lower-cased. */
export interface ConfigEntry {
  section: string
  subsection: string | null
  key: string
  value: string
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

/** `\"` and `\\` as git writes them in a quoted subsection or value. */
function unescape(s: string): string {
  return s.replace(/\\(["\\])/g, '$1')
}

/**
 * The entries of the repository's own config file (a linked worktree's common one), in file order;
 * [] when there is none; undefined when it includes other files, so the caller asks git.
 */
function readRepoConfig(gitDir: string): ConfigEntry[] | undefined {
  let dir = gitDir
  try {
    dir = resolve(gitDir, readFileSync(join(gitDir, 'commondir'), 'utf8').trim())
  } catch {
    // not a linked worktree
  }
  let text: string
  try {
    text = readFileSync(join(dir, 'config'), 'utf8')
  } catch {
    return []
  }
  if (/^\s*\[\s*include/im.test(text)) return undefined
  const entries: ConfigEntry[] = []
  let section = ''
  let subsection: string | null = null
  for (const raw of text.split('\n')) {
    const line = raw.trim()
    // Each pattern is anchored and its classes exclude what follows them: no backtracking over a line.
    const head = /^\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]/.exec(line)
    if (head) {
      section = head[1]!.toLowerCase()
      subsection = head[2] === undefined ? null : unescape(head[2])
      continue
    }
    const kv = /^([A-Za-z][A-Za-z0-9-]*)\s*=\s*(.*)$/.exec(line)
    if (!kv) continue
    let value = kv[2]!
    if (value.startsWith('"')) value = unescape(/^"((?:[^"\\]|\\.)*)"/.exec(value)?.[1] ?? value.slice(1))
    else value = value.replace(/\s[#;].*$/, '').trim()
    entries.push({section, subsection, key: kv[1]!.toLowerCase(), value})
  }
  return entries
}

/**
 * The config entries of the repository around `cwd`: from its file, or from git when the file includes
 * others. null outside a repository.
 */
export async function repoConfig(cwd: string, env: NodeJS.ProcessEnv): Promise<ConfigEntry[] | null> {
  const gitDir = findGitDir(cwd, env)
  if (!gitDir) return null
  const direct = readRepoConfig(gitDir)
  if (direct) return direct
  const out = await git(['config', '--null', '--list'], cwd)
  if (out === null) return []
  return out
    .split('\0')
    .filter(Boolean)
    .map((item) => {
      const nl = item.indexOf('\n')
      const name = nl < 0 ? item : item.slice(0, nl)
      const first = name.indexOf('.')
      const last = name.lastIndexOf('.')
      return {
        section: name.slice(0, first).toLowerCase(),
        subsection: last > first ? name.slice(first + 1, last) : null,
        key: name.slice(last + 1).toLowerCase(),
        value: nl < 0 ? '' : item.slice(nl + 1),
      }
    })
}
