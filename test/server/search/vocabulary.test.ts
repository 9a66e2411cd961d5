/**
 * @module Typo tolerance's vocabulary reads: every term one edit away from a word is within its probes
 * (property-tested), and a lookup reads a bounded number of rows however large the vocabulary grows.
 */
import fc from 'fast-check'
import {rmSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {VocabularyProbe} from '../../../server/search/vocabulary.js'
import {PROBE_LIMIT, typoCandidates, typoProbes, withinOneEdit} from '../../../server/search/vocabulary.js'
import {SearchEngine} from '../../../server/search/engine.js'
import {SqliteSearchIndex} from '../../../server/store/sqlite-search-index.js'
import {openSqliteStore} from '../../../server/store/sqlite.js'
import {StatementCache} from '../../../server/store/sqlite-rows.js'
import {tempDir} from '../../helpers/daemon.js'
import {entryRow} from '../../../bench/entry-row.js'

/** Whether a vocabulary term would come back from the probe (ignoring its row limit). */
function hits(probe: VocabularyProbe, term: string): boolean {
  const chars = Array.from(term)
  if (chars[0] !== probe.head || chars.length !== probe.length) return false
  return 'prefix' in probe ? term.startsWith(probe.prefix) : term.endsWith(probe.suffix)
}

/** One random edit: insertion, deletion, substitution or a swap of neighbours. */
const edited = fc
  .tuple(
    fc.string({unit: fc.constantFrom('a', 'b', 'c', 'd'), minLength: 5, maxLength: 14}),
    fc.nat(),
    fc.constantFrom('a', 'b', 'c', 'e'),
    fc.nat(3),
  )
  .map(([word, at, c, kind]) => {
    const i = 1 + (at % (word.length - 1)) // the first character is taken as right
    const v =
      kind === 0
        ? word.slice(0, i) + c + word.slice(i)
        : kind === 1
          ? word.slice(0, i) + word.slice(i + 1)
          : kind === 2
            ? word.slice(0, i) + c + word.slice(i + 1)
            : i + 1 < word.length
              ? word.slice(0, i) + word[i + 1] + word[i] + word.slice(i + 2)
              : word
    return {word, v}
  })

describe('typo probes', () => {
  it('cover every term one edit away from the word or from the word less up to three trailing characters', () => {
    fc.assert(
      fc.property(edited, fc.nat(3), ({word, v}, cut) => {
        // The vocabulary holds stems: the term may be an edit of the word cut short.
        const stem = cut > 0 && v.length - cut >= 4 ? v.slice(0, v.length - cut) : v
        const probes = typoProbes(word)
        if (typoCandidates(word, [stem]).length === 1)
          expect(
            probes.some((p) => hits(p, stem)),
            `${word} → ${stem}`,
          ).toBe(true)
      }),
      {numRuns: 3000},
    )
  })

  it('are a handful per word: two per form and length', () => {
    expect(typoProbes('kubernetse').length).toBeLessThanOrEqual(24)
    expect(typoProbes('crashign')).toContainEqual({head: 'c', length: 8, prefix: 'cras'})
    expect(typoProbes('crashign')).toContainEqual({head: 'c', length: 8, suffix: 'ign'})
  })

  it('accept one insertion, deletion, substitution or swap, and nothing further', () => {
    expect(withinOneEdit('daemon', 'daemno')).toBe(true)
    expect(withinOneEdit('daemon', 'daemons')).toBe(true)
    expect(withinOneEdit('daemon', 'demon')).toBe(true)
    expect(withinOneEdit('daemon', 'dxemon')).toBe(true)
    expect(withinOneEdit('daemon', 'dxemox')).toBe(false)
    expect(withinOneEdit('daemon', 'adamon')).toBe(false)
  })
})

describe('a typo lookup in a large vocabulary', () => {
  const dir = tempDir('kb-typo-scan-')
  const store = openSqliteStore({path: join(dir, 'kb.sqlite')})
  const at = '2026-01-01T00:00:00.000Z'
  const author = {id: 'p1', name: 'ann'}
  beforeAll(async () => {
    await store.insertPrincipal({...author, role: 'owner', created_at: at})
    // 100,000 distinct eight-letter words, every one beginning with "a": the whole vocabulary shares
    // the first letter and the length band that a lookup of a misspelt eight-letter word scans.
    let seed = 7
    const letter = (): string => {
      seed = (seed * 48271) % 2147483647
      return String.fromCharCode(97 + (seed % 26))
    }
    const words = Array.from({length: 100_000}, () => `a${Array.from({length: 7}, letter).join('')}`)
    words[500] = 'aquarium'
    // Each create is awaited: its vocabulary follows its transaction in slices (docs/performance.md, "Hostile inputs").
    for (let i = 0; i < 20; i++) {
      const body = words.slice(i * 5_000, (i + 1) * 5_000).join(' ')
      await store.insertEntry(
        entryRow({
          id: `e${i}`,
          title: `batch ${i}`,
          body,
          summary_title: '',
          author,
          created_at: at,
        }),
      )
    }
  }, 120_000)
  afterAll(async () => {
    await store.close()
    rmSync(dir, {recursive: true, force: true})
  })

  it('reads at most 24 × PROBE_LIMIT vocabulary rows per misspelt word, and still finds the right term', async () => {
    expect(store.db.prepare(`SELECT count(*) FROM search_vocab WHERE head = 'a'`).pluck().get()).toBeGreaterThan(90_000)
    let rows = 0
    const index = new SqliteSearchIndex(new StatementCache(store.db))
    const read = index.vocabulary.bind(index)
    index.vocabulary = async (probe, limit) => {
      const found = await read(probe, limit)
      rows += found.length
      return found
    }
    const engine = new SearchEngine(index)
    const r = await engine.search({principalId: author.id}, {}, {query: 'aqauriums ', limit: 10, explain: false})
    expect(r.hits.map((h) => h.entry.id)).toContain('e0')
    expect(rows).toBeGreaterThan(0)
    expect(rows).toBeLessThanOrEqual(24 * PROBE_LIMIT)
  })
})
