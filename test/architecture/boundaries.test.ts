/**
 * Architecture guard: the three sides of the tree stay apart (docs/architecture.md).
 * - `src/shared/` is imported by both the CLI and the daemon, so it imports neither.
 * - `server/` (the daemon) never imports CLI-only code (`src/cli/`, `commands/`).
 * - the CLI (`src/cli/`, `commands/`) never imports the daemon, except `kb daemon run`, which is it.
 * - `server/search/` is a leaf: of the rest of the daemon it imports `server/lib/` and the store's types only
 *   (type-only imports, erased at build); each store driver builds its index and hands it to the engine.
 * Imports are read from the sources (imports.ts).
 */
import {readdirSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {importsOf, ROOT, sources, typeOnly, valueImportsOf} from './imports.js'

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

  it("server/search is a leaf: of the daemon it imports itself, server/lib and the store's types only", () => {
    const search = server.filter(under('server/search/'))
    const outside = (t: string) => t.startsWith('server/') && !t.startsWith('server/search/') && !t.startsWith('server/lib/')
    const typeOf = (t: string) => t.startsWith('server/store/')
    const leaks = search.flatMap((f) => [
      ...valueImportsOf(f)
        .filter(outside)
        .map((t) => `${f} → ${t} (loads code)`),
      ...importsOf(f)
        .filter((t) => outside(t) && !typeOf(t))
        .map((t) => `${f} → ${t}`),
    ])
    expect(leaks).toEqual([])
  })

  it('tells a type-only import from one that loads code (positive control)', () => {
    // The engine names the store's types and loads the time slicer; a store driver loads the engine.
    expect(importsOf('server/search/engine.ts')).toContain('server/store/store.js')
    expect(valueImportsOf('server/search/engine.ts')).not.toContain('server/store/store.js')
    expect(valueImportsOf('server/search/engine.ts')).toContain('server/lib/time-slice.js')
    expect(valueImportsOf('server/store/sqlite.ts')).toContain('server/search/engine.js')
    expect(typeOnly(undefined, '{type A, type B}')).toBe(true)
    expect(typeOnly(undefined, '{type A, B}')).toBe(false)
    expect(typeOnly('type ', '{A}')).toBe(true)
    // sqlite-search-index.ts mixes both on one line: `{ENTRY_COLUMNS, filterSql, type StatementCache}` loads code.
    expect(valueImportsOf('server/store/sqlite-search-index.ts')).toContain('server/store/sqlite-rows.js')
  })

  it('nothing outside src/shared, src/cli, commands and server holds product code', () => {
    const top = readdirSync(join(ROOT, 'src')).sort()
    expect(top).toEqual(['cli', 'shared'])
  })
})
