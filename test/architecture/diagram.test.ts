/**
 * docs/architecture.md draws which folder imports which ("Imports between folders"); this checks the drawing
 * against the sources: every arrow drawn is an import that exists, every import from one folder into another is
 * drawn, an arrow marked `(types)` carries type-only imports alone, and every folder of the tree is named in the
 * document. New files in a folder change nothing; a new folder, or a new kind of import between two, must be drawn.
 */
import {readdirSync, readFileSync, statSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {importsOf, ROOT, sources, valueImportsOf} from './imports.js'

const DOC = 'docs/architecture.md'
const HEADING = '## Imports between folders'

/** The box a file is drawn in: a folder of server/ (its sub-folders inside it), server's own files, or a side. */
function folderOf(path: string): string | null {
  const parts = path.split('/')
  if (parts[0] === 'server') return parts.length > 2 ? `server/${parts[1]}/` : 'server/*.ts'
  if (parts[0] === 'src' && parts.length > 2) return `src/${parts[1]}/`
  if (parts[0] === 'commands') return 'commands/'
  return null
}

interface Arrow {
  from: string
  to: string
  /** Drawn `(types)`: the imports along it name types only. */
  types: boolean
}

/** The arrows of the diagram: lines `from ─► to, to (types), to (a note)` in the fenced block under HEADING. */
function drawnArrows(doc: string): Arrow[] {
  const at = doc.indexOf(`\n${HEADING}\n`)
  if (at === -1) throw new Error(`${DOC} has no section "${HEADING.slice(3)}"`)
  const block = /```[a-z]*\n([\s\S]*?)```/.exec(doc.slice(at))?.[1]
  if (block === undefined) throw new Error(`the section "${HEADING.slice(3)}" has no diagram`)
  return block
    .split('\n')
    .filter((line) => line.includes('─►'))
    .flatMap((line) => {
      const [from, targets] = line.split('─►').map((s) => s.trim()) as [string, string]
      return targets.split(/,\s*(?![^()]*\))/).map((t) => {
        const m = /^(\S+)(?:\s+\(([^)]*)\))?$/.exec(t.trim())
        if (!m) throw new Error(`cannot read the arrow "${from} ─► ${t}"`)
        return {from, to: m[1]!, types: m[2] === 'types'}
      })
    })
}

/** Every import from one folder into another: `from → to` with the file imports that make it. */
function realArrows(): Map<string, {files: string[]; values: string[]}> {
  const out = new Map<string, {files: string[]; values: string[]}>()
  for (const file of [...sources('commands'), ...sources('src'), ...sources('server')]) {
    const from = folderOf(file)!
    const values = new Set(valueImportsOf(file))
    for (const target of importsOf(file)) {
      const to = folderOf(target)
      if (to === null || to === from) continue
      const key = `${from} ─► ${to}`
      const seen = out.get(key) ?? {files: [], values: []}
      seen.files.push(`${file} → ${target}`)
      if (values.has(target)) seen.values.push(`${file} → ${target}`)
      out.set(key, seen)
    }
  }
  return out
}

/** The folders of the tree the document must name: each of src/ and server/, and their sub-folders. */
function folders(dir: string, depth: number): string[] {
  return readdirSync(join(ROOT, dir))
    .filter((name) => statSync(join(ROOT, dir, name)).isDirectory())
    .flatMap((name) => [`${dir}/${name}/`, ...(depth > 1 ? folders(`${dir}/${name}`, depth - 1) : [])])
}

describe('the diagram of docs/architecture.md', () => {
  const doc = readFileSync(join(ROOT, DOC), 'utf8')
  const drawn = drawnArrows(doc)
  const real = realArrows()

  it('reads the arrows it checks (positive control)', () => {
    expect(drawn.length).toBeGreaterThan(20)
    expect(drawn).toContainEqual({from: 'commands/', to: 'src/cli/', types: false})
    expect(real.get('server/routes/ ─► server/services/')?.files.length).toBeGreaterThan(5)
    expect(() => drawnArrows('# no diagram\n')).toThrow(/no section/)
    expect(drawnArrows(`x\n${HEADING}\n\n\`\`\`text\na/ ─► b/, c/ (types), d/ (only e.ts)\n\`\`\`\n`)).toEqual([
      {from: 'a/', to: 'b/', types: false},
      {from: 'a/', to: 'c/', types: true},
      {from: 'a/', to: 'd/', types: false},
    ])
  })

  it('draws every arrow once', () => {
    const keys = drawn.map((a) => `${a.from} ─► ${a.to}`)
    expect(keys.filter((k, i) => keys.indexOf(k) !== i)).toEqual([])
  })

  it('every arrow drawn is an import that exists', () => {
    expect(drawn.map((a) => `${a.from} ─► ${a.to}`).filter((k) => !real.has(k))).toEqual([])
  })

  it('every import from one folder into another is drawn', () => {
    const keys = new Set(drawn.map((a) => `${a.from} ─► ${a.to}`))
    const missing = [...real].filter(([k]) => !keys.has(k)).map(([k, v]) => `${k} (${v.files[0]})`)
    expect(missing).toEqual([])
  })

  it('an arrow drawn (types) carries type-only imports, one drawn plain loads code', () => {
    const wrong = drawn.flatMap((a) => {
      const seen = real.get(`${a.from} ─► ${a.to}`)
      if (!seen) return []
      if (a.types && seen.values.length > 0) return [`${a.from} ─► ${a.to} is drawn (types) but loads code: ${seen.values[0]}`]
      if (!a.types && seen.values.length === 0) return [`${a.from} ─► ${a.to} names types only: draw it (types)`]
      return []
    })
    expect(wrong).toEqual([])
  })

  it('names every folder of the tree', () => {
    const all = [...folders('src', 2), ...folders('server', 2), 'commands/']
    expect(all.length).toBeGreaterThan(20)
    // By its path, or inside its parent's description by its own name (`pages/` among the web view's modules).
    const unnamed = all.filter((f) => !doc.includes(`\`${f}\``) && !doc.includes(`\`${f.split('/').at(-2)}/\``))
    expect(unnamed).toEqual([])
  })
})
