/**
 * @module The git calls of anchoring and `kb check`, each one `execFile` (no shell) and batched: one
 * `git diff -M --name-status` per distinct anchor commit, one `git cat-file --batch` for every blob read
 * at a revision, so a thousand anchors cost a handful of processes (docs/performance.md, "kb check").
 */
import {execFile, spawn} from 'node:child_process'
import {resolve} from 'node:path'
import {KbError} from '../../shared/errors.js'

/** `git <args>` in `cwd`: stdout as is; a failure is a KbError naming the command and git's own words. */
export function gitOut(args: string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('git', args, {cwd, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, windowsHide: true}, (err, stdout, stderr) => {
      if (err) {
        const said = (stderr || err.message).trim().split('\n')[0]
        reject(new KbError('usage', `git ${args.join(' ')} failed: ${said}`))
      } else resolve(stdout)
    })
  })
}

/** The repository's top directory and its (common) git directory, or null outside a work tree. */
export async function repoRoot(cwd: string): Promise<{root: string; gitDir: string} | null> {
  try {
    const [root, gitDir] = (await gitOut(['rev-parse', '--show-toplevel', '--git-common-dir'], cwd)).trim().split('\n')
    return {root: root!, gitDir: resolve(cwd, gitDir!)}
  } catch {
    return null
  }
}

/** The full commit id `rev` names (`HEAD` by default); refused (exit 2) when git knows no such commit. */
export async function resolveCommit(cwd: string, rev = 'HEAD'): Promise<string> {
  try {
    return (await gitOut(['rev-parse', '--verify', '--quiet', `${rev}^{commit}`], cwd)).trim()
  } catch {
    throw new KbError('usage', `${rev} is not a commit of this repository`)
  }
}

/** What changed between a commit and `rev` (or the work tree): renames old → new, and the paths deleted. */
export interface TreeChanges {
  renamed: Map<string, string>
  deleted: Set<string>
}

/** `git diff -M --name-status -z <from> [<to>]`; null when `from` is not in this repository (a shallow clone, another repo). */
export async function treeChanges(cwd: string, from: string, to: string | null): Promise<TreeChanges | null> {
  let out: string
  try {
    out = await gitOut(['diff', '-M', '--name-status', '-z', '--no-ext-diff', from, ...(to ? [to] : []), '--'], cwd)
  } catch {
    return null
  }
  const parts = out.split('\0')
  const renamed = new Map<string, string>()
  const deleted = new Set<string>()
  for (let i = 0; i < parts.length && parts[i] !== '';) {
    const status = parts[i]!
    if (status.startsWith('R') || status.startsWith('C')) {
      if (status.startsWith('R')) renamed.set(parts[i + 1]!, parts[i + 2]!)
      i += 3
    } else {
      if (status === 'D') deleted.add(parts[i + 1]!)
      i += 2
    }
  }
  return {renamed, deleted}
}

/** The paths a revision range touched (both sides of a rename), for `kb check --changed-in`. */
export async function pathsChangedIn(cwd: string, range: string): Promise<Set<string>> {
  const out = await gitOut(['diff', '-M', '--name-status', '-z', '--no-ext-diff', ...rangeArgs(range), '--'], cwd)
  const paths = new Set<string>()
  for (const p of out.split('\0')) if (p !== '' && !/^[ACDMRTUXB][0-9]*$/.test(p)) paths.add(p)
  return paths
}

/** `a..b` as `git diff a b`; a single commit as the change it made (`c^ c`, or the whole tree for a root commit). */
function rangeArgs(range: string): string[] {
  if (range.includes('..')) {
    const [from, to] = range.split(/\.\.\.?/)
    return [from || 'HEAD', to || 'HEAD']
  }
  return [`${range}^!`]
}

/**
 * The contents of many `<rev>:<path>` objects in one `git cat-file --batch`: each name → its text, or null
 * when it does not exist.
 */
export function readBlobs(cwd: string, names: string[]): Promise<Map<string, string | null>> {
  const result = new Map<string, string | null>()
  if (names.length === 0) return Promise.resolve(result)
  return new Promise((resolve, reject) => {
    const child = spawn('git', ['cat-file', '--batch'], {cwd, stdio: ['pipe', 'pipe', 'pipe'], windowsHide: true})
    const chunks: Buffer[] = []
    child.stdout.on('data', (d: Buffer) => chunks.push(d))
    child.on('error', reject)
    child.on('close', () => {
      const buf = Buffer.concat(chunks)
      let at = 0
      for (const name of names) {
        const nl = buf.indexOf(10, at)
        if (nl === -1) break
        const header = buf.subarray(at, nl).toString('utf8')
        at = nl + 1
        const m = /^[0-9a-f]+ (\w+) (\d+)$/.exec(header)
        if (!m) {
          result.set(name, null)
          continue
        }
        const size = Number(m[2])
        result.set(name, m[1] === 'blob' ? buf.subarray(at, at + size).toString('utf8') : null)
        at += size + 1
      }
      resolve(result)
    })
    child.stdin.on('error', () => undefined)
    child.stdin.end(names.map((n) => `${n}\n`).join(''))
  })
}

/**
 * Of `commits`, those this repository has but `target` does not descend from: a checkout behind or beside
 * where an anchor was made says nothing about whether its text changed since. Commits the repository does
 * not have (a shallow clone) are not among them: those anchors are checked all the same.
 */
export async function notAncestors(cwd: string, target: string, commits: Iterable<string>): Promise<Set<string>> {
  const asked = [...new Set(commits)].filter((c) => c !== target && !target.startsWith(c))
  const out = new Set<string>()
  if (asked.length === 0) return out
  // Usually one process: the commits reachable from the anchors' but not from the target; an anchor's commit
  // among them is not an ancestor (empty: all are). A commit git does not have fails it: then one by one.
  try {
    const beyond = (await gitOut(['rev-list', ...asked, `^${target}`, '--'], cwd)).split('\n').filter(Boolean)
    if (beyond.length === 0) return out
    const set = new Set(beyond)
    for (const c of asked) if (set.has(c) || (c.length < 40 && beyond.some((b) => b.startsWith(c)))) out.add(c)
    return out
  } catch {
    // a commit this repository does not have (a shallow clone): see below
  }
  const known = await batchCheck(cwd, asked)
  if (known.size === 0) return out
  const ancestors = new Set((await gitOut(['rev-list', target, '--'], cwd)).split('\n'))
  for (const [c, full] of known) if (!ancestors.has(full)) out.add(c)
  return out
}

/** `git cat-file --batch-check` of commit names: each that is a commit here → its full id. */
function batchCheck(cwd: string, names: string[]): Promise<Map<string, string>> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', ['cat-file', '--batch-check'], {cwd, stdio: ['pipe', 'pipe', 'ignore'], windowsHide: true})
    let text = ''
    child.stdout.on('data', (d: Buffer) => (text += d.toString('utf8')))
    child.on('error', reject)
    child.on('close', () => {
      const out = new Map<string, string>()
      const lines = text.split('\n')
      names.forEach((n, i) => {
        const m = /^([0-9a-f]+) commit \d+$/.exec(lines[i] ?? '')
        if (m) out.set(n, m[1]!)
      })
      resolve(out)
    })
    child.stdin.on('error', () => undefined)
    child.stdin.end(names.map((n) => `${n}\n`).join(''))
  })
}
