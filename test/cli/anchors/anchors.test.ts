/**
 * @module The pure parts of anchoring: specs, root-relative paths, the hash with CRLF → LF, symbol blocks,
 * the body's path mentions, and the check algorithm against a real temporary git repository.
 */
import {execFileSync} from 'node:child_process'
import {mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {anchorLabel, insideRepo, parseAnchorSpec, rootRelative} from '../../../src/cli/anchors/spec.js'
import {anchoredText, definition, findLines, sha256, splitLines, symbolBlock} from '../../../src/cli/anchors/text.js'
import {suggestAnchors} from '../../../src/cli/anchors/suggest.js'
import {checkAnchors} from '../../../src/cli/anchors/check.js'
import {notAncestors, pathsChangedIn, readBlobs} from '../../../src/cli/anchors/git.js'
import type {Anchor} from '../../../src/shared/types.js'

describe('anchor specs', () => {
  it('reads path, path:a-b, path:a and path#symbol', () => {
    expect(parseAnchorSpec('src/db/pool.ts')).toEqual({path: 'src/db/pool.ts', lines: null, symbol: null})
    expect(parseAnchorSpec('src/db/pool.ts:40-62')).toEqual({path: 'src/db/pool.ts', lines: '40-62', symbol: null})
    expect(parseAnchorSpec('src/db/pool.ts:7')).toEqual({path: 'src/db/pool.ts', lines: '7-7', symbol: null})
    expect(parseAnchorSpec('src/db/pool.ts#connect')).toEqual({path: 'src/db/pool.ts', lines: null, symbol: 'connect'})
    // A colon that is not a line range belongs to the path.
    expect(parseAnchorSpec('docs/a:b.md')).toEqual({path: 'docs/a:b.md', lines: null, symbol: null})
  })

  it('refuses a range that ends before it starts, and an empty spec (exit 2)', () => {
    expect(() => parseAnchorSpec('a.ts:9-3')).toThrow(/ends before it starts/)
    expect(() => parseAnchorSpec('  ')).toThrow(/give a path/)
    expect(() => parseAnchorSpec('a.ts#')).toThrow(/symbol/)
  })

  it('makes a path relative to the repository root, and refuses one outside it', () => {
    expect(rootRelative('pool.ts', '/r/src/db', '/r')).toBe('src/db/pool.ts')
    expect(rootRelative('../x.ts', '/r/src/db', '/r')).toBe('src/x.ts')
    expect(rootRelative('/r/a/b.ts', '/elsewhere', '/r')).toBe('a/b.ts')
    expect(() => rootRelative('../../../etc/passwd', '/r/src', '/r')).toThrow(/not a file inside this repository/)
  })

  it('names an anchor as people write it', () => {
    expect(anchorLabel({path: 'a.ts', lines: '1-2', symbol: null})).toBe('a.ts:1-2')
    expect(anchorLabel({path: 'a.ts', lines: null, symbol: 'f'})).toBe('a.ts#f')
    expect(anchorLabel({path: 'a.ts'})).toBe('a.ts')
  })
})

describe('anchored text and its hash', () => {
  it('hashes the same text with CRLF and LF line endings alike', () => {
    const lf = 'a\nb\nc\nd\n'
    const crlf = 'a\r\nb\r\nc\r\nd\r\n'
    expect(sha256(anchoredText(lf, {lines: '2-3'}).text)).toBe(sha256(anchoredText(crlf, {lines: '2-3'}).text))
    expect(anchoredText(crlf, {lines: '2-3'}).text).toBe('b\nc')
    expect(sha256(anchoredText(crlf, {}).text)).toBe(sha256(lf))
  })

  it('finds a symbol by its definition, to the end of its block by braces or by indentation', () => {
    const ts = [
      'import x from "y"',
      'connect()',
      '',
      'export async function connect(url: string) {',
      '  if (x) {',
      '    go()',
      '  }',
      '}',
      'const after = 1',
    ].join('\n')
    expect(symbolBlock(splitLines(ts), 'connect')).toEqual([4, 8])
    const py = ['class Pool:', '    def acquire(self):', '        return 1', '', '    def release(self):', '        pass', 'x = 2'].join(
      '\n',
    )
    expect(symbolBlock(splitLines(py), 'acquire')).toEqual([2, 3])
    expect(symbolBlock(splitLines(py), 'Pool')).toEqual([1, 6])
    const go = ['func (p *Pool) Get() int {', '\treturn 1', '}'].join('\n')
    expect(symbolBlock(splitLines(go), 'Pool.Get')).toEqual([1, 3])
    expect(symbolBlock(splitLines(ts), 'missing')).toBeNull()
    // Not found: the whole file is the anchored text.
    expect(anchoredText(ts, {symbol: 'missing'})).toEqual({text: ts, lines: null})
  })

  it('tells a definition from a call', () => {
    expect(definition('  connect();', 'connect')).toBe(0)
    expect(definition('  connect(a, b) {', 'connect')).toBe(1)
    expect(definition('def connect(self):', 'connect')).toBe(2)
    expect(definition('pub fn connect() -> Pool {', 'connect')).toBe(2)
    expect(definition('const connect = () => 1', 'connect')).toBe(2)
    expect(definition('return connect(x)', 'connect')).toBe(0)
  })

  it('finds moved lines by their hash, the nearest first', () => {
    const lines = ['x', 'a', 'b', 'y', 'a', 'b']
    const h = sha256('a\nb')
    expect(findLines(lines, 2, h, 5)).toEqual([5, 6])
    expect(findLines(lines, 2, h, 1, 'a')).toEqual([2, 3])
    expect(findLines(lines, 2, sha256('q\nr'), 1)).toBeNull()
  })

  it('stays linear on a long line with no definition in it', () => {
    const long = 'a'.repeat(1_000_000)
    const t = Date.now()
    expect(symbolBlock([long, long], 'a')).toBeNull()
    expect(Date.now() - t).toBeLessThan(1000)
  })
})

describe('suggested anchors', () => {
  const files = new Set(['src/db/pool.ts', 'README.md'])
  it('proposes the repository paths a body mentions, with their lines, each once', () => {
    const body = 'The pool in src/db/pool.ts:40-62 leaks; see `src/db/pool.ts:40-62`, README.md. Not src/nope.ts or ../etc/passwd or words.'
    expect(suggestAnchors(body, '/r', (p) => files.has(p))).toEqual(['src/db/pool.ts:40-62', 'README.md'])
  })
  it('scans a long body without a path in linear time', () => {
    const t = Date.now()
    expect(suggestAnchors('a/'.repeat(200_000) + ':' + '1'.repeat(100), '/r', () => false)).toEqual([])
    expect(Date.now() - t).toBeLessThan(1000)
  })
})

describe('paths from the server', () => {
  it('are read only when they stay inside the repository', () => {
    expect(['src/a.ts', 'a', 'docs/x y.md'].map(insideRepo)).toEqual([true, true, true])
    expect(['../etc/passwd', '/etc/passwd', 'src/../../x', 'a//b', 'C:\\x', 'a/./b', '', 'a\u0000b'].map(insideRepo)).toEqual(
      Array(8).fill(false),
    )
  })
})

describe('checking anchors in a git repository', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kb-anchors-'))
  afterAll(() => rmSync(dir, {recursive: true, force: true}))
  const env = {
    ...process.env,
    GIT_AUTHOR_NAME: 'A',
    GIT_AUTHOR_EMAIL: 'a@x',
    GIT_COMMITTER_NAME: 'A',
    GIT_COMMITTER_EMAIL: 'a@x',
    GIT_CONFIG_NOSYSTEM: '1',
  }
  const git = (...args: string[]): string => execFileSync('git', args, {cwd: dir, env, encoding: 'utf8'}).trim()
  const lines = (n: number, tag: string): string => Array.from({length: n}, (_, i) => `${tag} line ${i + 1}`).join('\n') + '\n'
  const anchor = (path: string, l: string | null, text: string, commit: string): Anchor => ({
    path,
    lines: l,
    symbol: null,
    commit,
    hash: sha256(anchoredText(text, {lines: l}).text),
    state: 'current',
    moved_to: null,
    checked_at: null,
    checked_commit: null,
  })

  it('says current, changed, moved (lines and renames) and deleted', async () => {
    git('init', '-q', '-b', 'main')
    mkdirSync(join(dir, 'src'))
    const pool = lines(30, 'pool')
    writeFileSync(join(dir, 'src/pool.ts'), pool)
    writeFileSync(join(dir, 'src/keep.ts'), lines(10, 'keep'))
    writeFileSync(join(dir, 'src/move.ts'), lines(10, 'move'))
    writeFileSync(join(dir, 'src/gone.ts'), lines(10, 'gone'))
    git('add', '.')
    git('commit', '-q', '-m', 'one')
    const c1 = git('rev-parse', 'HEAD')
    const entries = [
      {id: 'e1', anchors: [anchor('src/pool.ts', '10-12', pool, c1), anchor('src/pool.ts', '20-21', pool, c1)]},
      {id: 'e2', anchors: [anchor('src/keep.ts', '2-3', lines(10, 'keep'), c1), anchor('src/move.ts', null, lines(10, 'move'), c1)]},
      {id: 'e3', anchors: [anchor('src/gone.ts', null, lines(10, 'gone'), c1)]},
    ]
    // Lines 10-12 edited; three lines inserted above 20-21, which moves them to 23-24.
    const p = pool.split('\n')
    p[10] = 'pool line 11 EDITED'
    p.splice(5, 0, 'new a', 'new b', 'new c')
    writeFileSync(join(dir, 'src/pool.ts'), p.join('\n'))
    git('mv', 'src/move.ts', 'src/moved.ts')
    unlinkSync(join(dir, 'src/gone.ts'))
    git('commit', '-q', '-am', 'two')
    for (const rev of [null, 'HEAD']) {
      const r = await checkAnchors(entries, {root: dir, rev})
      const states = (id: string): unknown[] => r.get(id)!.map((o) => [o.result.state, o.result.moved_to ?? null, o.news])
      expect(states('e1'), String(rev)).toEqual([
        ['changed', null, true],
        ['moved', {path: 'src/pool.ts', lines: '23-24'}, true],
      ])
      expect(states('e2')).toEqual([
        ['current', null, false],
        ['moved', {path: 'src/moved.ts', lines: null}, true],
      ])
      expect(states('e3')).toEqual([['deleted', null, true]])
    }
    // The first commit's tree: everything as anchored.
    const first = await checkAnchors(entries, {root: dir, rev: c1})
    expect([...first.values()].flat().map((o) => o.result.state)).toEqual(['current', 'current', 'current', 'current', 'current'])
    expect(await pathsChangedIn(dir, 'HEAD~1..HEAD')).toEqual(new Set(['src/pool.ts', 'src/move.ts', 'src/moved.ts', 'src/gone.ts']))
    expect(await pathsChangedIn(dir, 'HEAD')).toEqual(new Set(['src/pool.ts', 'src/move.ts', 'src/moved.ts', 'src/gone.ts']))
    // Anchored at the second commit, checked at the first: the first does not descend from it, so it is left alone.
    const c2 = git('rev-parse', 'HEAD')
    const later = {id: 'e4', anchors: [anchor('src/pool.ts', '1-2', p.join('\n'), c2), anchor('src/keep.ts', '2-3', lines(10, 'keep'), c1)]}
    const skip = await notAncestors(dir, c1, [c2, c1, 'f'.repeat(40)])
    expect(skip).toEqual(new Set([c2]))
    const back = (await checkAnchors([later], {root: dir, rev: c1, skip})).get('e4')!
    expect(back.map((o) => [o.skipped, o.news, o.result.state])).toEqual([
      [true, false, 'current'],
      [false, false, 'current'],
    ])
    expect(await notAncestors(dir, c2, [c1])).toEqual(new Set())
    expect(await notAncestors(dir, c1, [c2, c1])).toEqual(new Set([c2]))
    const blobs = await readBlobs(dir, [`${c1}:src/gone.ts`, 'HEAD:src/gone.ts'])
    expect(blobs.get(`${c1}:src/gone.ts`)).toBe(lines(10, 'gone'))
    expect(blobs.get('HEAD:src/gone.ts')).toBeNull()
  })
})
