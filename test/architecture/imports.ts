/**
 * @module The imports of the sources as the architecture tests read them: static `from`, `import()` and
 * `export … from` of relative paths, resolved to paths from the repository root, and told apart when type-only
 * (erased at build, so they load no code).
 */
import {readdirSync, readFileSync, statSync} from 'node:fs'
import {dirname, join, relative, resolve} from 'node:path'

export const ROOT = resolve(import.meta.dirname, '..', '..')
const SPEC = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)['"](\.{1,2}\/[^'"]+)['"]/g

/** The TypeScript sources under `dir` (a path from the root), declarations left out. */
export function sources(dir: string): string[] {
  const out: string[] = []
  for (const name of readdirSync(join(ROOT, dir))) {
    const path = join(dir, name)
    if (statSync(join(ROOT, path)).isDirectory()) out.push(...sources(path))
    else if (/\.tsx?$/.test(name) && !name.endsWith('.d.ts')) out.push(path)
  }
  return out
}

/** Every relative import of `file`, as a path from the repository root. */
export function importsOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8')
  return [...text.matchAll(SPEC)].map((m) => relative(ROOT, resolve(ROOT, dirname(file), m[1]!)))
}

/** A static import or re-export with what it names, so a type-only one can be told apart. */
const STATEMENT = /\b(import|export)\s+(type\s+)?([^'";]*?)\s*from\s*['"](\.{1,2}\/[^'"]+)['"]/g

/** Type-only: `import type …`, `export type …`, or braces whose every name is marked `type`. */
export function typeOnly(keyword: string | undefined, names: string): boolean {
  if (keyword) return true
  const braces = /^\{([^}]*)\}$/.exec(names.trim())
  if (!braces) return false
  const parts = braces[1]!
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)
  return parts.length > 0 && parts.every((p) => p.startsWith('type '))
}

/** The relative imports of `file` that load code at run time (every import that is not type-only). */
export function valueImportsOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8')
  const typeTargets = [...text.matchAll(STATEMENT)]
    .filter((m) => typeOnly(m[2], m[3]!))
    .map((m) => relative(ROOT, resolve(ROOT, dirname(file), m[4]!)))
  const all = importsOf(file)
  // A module imported both ways still loads: drop one type-only occurrence per type-only statement.
  for (const t of typeTargets) all.splice(all.indexOf(t), 1)
  return all
}
