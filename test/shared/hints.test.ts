/**
 * The hints table's joins (src/shared/hints.ts) and "did you mean" (src/cli/did-you-mean.ts): nothing said twice, advice
 * for the local daemon only when the server is local, and typos found by edit distance with swaps as one edit.
 */
import {describe, expect, it} from 'vitest'
import {hintFor, withHint} from '../../src/shared/hints.js'
import {closest, editDistance} from '../../src/cli/did-you-mean.js'

describe('withHint', () => {
  it('leaves out what the message already says', () => {
    const pg = 'the database (PostgreSQL) is not answering; retry in a moment'
    expect(withHint(pg, hintFor('unavailable', 'cli'))).toBe(pg)
    expect(withHint(pg, hintFor('bad_gateway', 'cli'))).toBe(`${pg}; the proxy in front of the kb server could not reach it`)
    const local = 'kb daemon at http://127.0.0.1:7411 is not reachable (connection refused); run `kb daemon start` or check --base-url'
    expect(withHint(local, hintFor('unreachable', 'agent'))).toBe(local)
    expect(withHint('nope', undefined)).toBe('nope')
  })

  it('gives remote words for a remote server', () => {
    expect(hintFor('unreachable', 'agent')).toContain('kb daemon start')
    expect(hintFor('unreachable', 'agent', {remote: true})).not.toContain('kb daemon')
    expect(hintFor('internal', 'cli', {remote: true})).not.toContain('kb daemon logs')
    expect(hintFor('validation_failed', 'cli', {field: 'project_id'})).toContain('kb project join')
  })
})

describe('did you mean', () => {
  it('counts a swap of neighbours as one edit', () => {
    expect(editDistance('limti', 'limit')).toBe(1)
    expect(editDistance('serch', 'search')).toBe(1)
    expect(editDistance('', 'abc')).toBe(3)
  })

  it('suggests only close words', () => {
    expect(closest('--limti', ['--limit', '--all', '--tag'])).toBe('--limit')
    expect(closest('serch', ['search', 'show', 'sync'])).toBe('search')
    expect(closest('xyzzy', ['search', 'show', 'sync'])).toBeUndefined()
    expect(closest('x'.repeat(100_000), ['search'])).toBeUndefined()
  })
})
