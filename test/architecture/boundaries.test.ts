/**
 * Architecture guard: the three sides of the tree stay apart (docs/architecture.md).
 * - `src/shared/` is imported by both the CLI and the daemon, so it imports neither.
 * - `server/` (the daemon) never imports CLI-only code (`src/cli/`, `commands/`).
 * - the CLI (`src/cli/`, `commands/`) never imports the daemon, except `kb daemon run`, which is it.
 * Imports are read from the sources (static `from`, `import()` and `export … from`), resolved to files.
 */
import {readdirSync, readFileSync, statSync} from 'node:fs'
import {dirname, join, relative, resolve} from 'node:path'
import {describe, expect, it} from 'vitest'

const ROOT = resolve(import.meta.dirname, '..', '..')
const SPEC = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)['"](\.{1,2}\/[^'"]+)['"]/g

function sources(dir: string): string[] {
  const out: string[] = []
  for (const name of readdirSync(join(ROOT, dir))) {
    const path = join(dir, name)
    if (statSync(join(ROOT, path)).isDirectory()) out.push(...sources(path))
    else if (/\.tsx?$/.test(name) && !name.endsWith('.d.ts')) out.push(path)
  }
  return out
}

/** Every relative import of `file`, as a path from the repository root. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8')
  return [...text.matchAll(SPEC)].map((m) => relative(ROOT, resolve(ROOT, dirname(file), m[1]!)))
}

function violations(from: string[], forbidden: (target: string) => boolean, allow: (file: string) => boolean = () => false): string[] {
  return from
    .filter((f) => !allow(f))
    .flatMap((f) =>
      importsOf(f)
        .filter(forbidden)
        .map((t) => `${f} → ${t}`),
    )
}

const under = (prefix: string) => (p: string) => p.startsWith(prefix)

describe('architecture boundaries', () => {
  const shared = sources('src/shared')
  const server = sources('server')
  const cli = [...sources('src/cli'), ...sources('commands')]

  it('finds the imports it checks (positive control)', () => {
    expect(importsOf('server/app.ts')).toContain('src/shared/errors.js')
    expect(importsOf('commands/daemon/run.ts').some(under('server/'))).toBe(true)
    expect(shared.length).toBeGreaterThan(5)
    expect(server.length).toBeGreaterThan(20)
    expect(cli.length).toBeGreaterThan(30)
  })

  it('src/shared imports neither the CLI nor the daemon', () => {
    expect(violations(shared, (t) => t.startsWith('src/cli/') || t.startsWith('server/') || t.startsWith('commands/'))).toEqual([])
  })

  it('the daemon never imports CLI-only code', () => {
    expect(violations(server, (t) => t.startsWith('src/cli/') || t.startsWith('commands/'))).toEqual([])
  })

  it('the CLI never imports the daemon, except `kb daemon run`', () => {
    expect(violations(cli, under('server/'), (f) => f === 'commands/daemon/run.ts')).toEqual([])
  })

  it('nothing outside src/shared, src/cli, commands and server holds product code', () => {
    const top = readdirSync(join(ROOT, 'src')).sort()
    expect(top).toEqual(['cli', 'shared'])
  })
})
