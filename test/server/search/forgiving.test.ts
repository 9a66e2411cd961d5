/**
 * @module Forgiving queries: the query parser (code tokens, folding, prefixes, FTS5 operators as text)
 * and, through HTTP, prefix completion, code tokens, typos, filters and visibility, and token budgets.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {parseQuery} from '../../../server/search/query.js'
import {newPrincipal, startInProcessDaemon, type TestDaemon} from '../../helpers/daemon.js'

/** A query's terms as short strings: a term's spellings joined by |, a phrase in quotes, a prefix after *. */
const show = (q: string): string[] =>
  parseQuery(q).map((t) => (t.kind === 'prefix' ? `*${t.word}` : t.kind === 'phrase' ? `"${t.terms.join(' ')}"` : t.terms.join('|')))

describe('query parser', () => {
  it('folds case and accents, stems, and drops repeats', () => {
    expect(show('Café CAFE résumé ')).toEqual(['cafe', 'resum'])
  })

  it('keeps a code token whole, as a phrase of its parts, and by its parts', () => {
    expect(show('max_idle_conns ')).toEqual(['max_idle_conns', '"max idl conn"', 'max', 'idl', 'conn'])
    expect(show('foo.bar() ')).toEqual(['foo.bar', '"foo bar"', 'foo', 'bar'])
    expect(show('src/server/app.ts ')).toEqual(['src/server/app.ts', '"src server app ts"', 'src', 'server', 'app', 'ts'])
    expect(show('node:http ')).toEqual(['node:http', '"node http"', 'node', 'http'])
    expect(show('ERR_SOCKET_BAD_PORT ')).toEqual(['err_socket_bad_port', '"err socket bad port"', 'err', 'socket', 'bad', 'port'])
    expect(show('EADDRINUSE ')).toEqual(['eaddrinus'])
    expect(show('--verbose ')).toEqual(['verbos'])
    expect(show('getUserName ')).toEqual(['getusername', '"get user name"', 'get', 'user', 'name'])
    expect(show('XMLHttpRequest ')).toEqual(['xmlhttprequest', '"xml http request"', 'xml', 'http', 'request'])
    expect(show('v20.19.0 ')).toEqual(['v20.19.0|20.19.0', '"20 19 0"', '20', '19', '0'])
    expect(show('E0432 5432 ')).toEqual(['e0432', '5432'])
  })

  it('reads CJK runs as bigrams and their phrase, and German words with both spellings', () => {
    expect(show('文字化け')).toEqual(['"文字 字化 化け"', '文字', '字化', '化け'])
    expect(show('한글')).toEqual(['한글'])
    expect(show('Fußgängerzone ')).toEqual(['fussgangerzon|fussgaengerzon'])
    expect(show('fussgaengerzone ')).toEqual(['fussgaengerzon'])
  })

  it('completes the last word only while it is being typed, and never a number', () => {
    expect(show('port daemo')).toEqual(['port', 'daemo', '*daemo'])
    expect(show('port daemo ')).toEqual(['port', 'daemo'])
    expect(show('port daemo .')).toEqual(['port', 'daemo']) // Cranfield's questions end like this
    expect(show('foo.bar(')).toEqual(['foo.bar', '"foo bar"', 'foo', 'bar'])
    expect(show('max_idle')).toEqual(['max_idle', '"max idl"', 'max', 'idl', '*idle'])
    expect(show('da')).toEqual(['da']) // too short to complete
    expect(show('how to')).toEqual(['how', 'to']) // stop words are not completed
    expect(show('5432')).toEqual(['5432'])
  })

  it('leaves FTS5 operators and syntax as text', () => {
    expect(show('NOT found AND "quoted" OR x* ^start col:val (a) -b NEAR(c d)')).toEqual([
      'found',
      'quot',
      'x',
      'start',
      'col:val',
      '"col val"',
      'col',
      'val',
      'b',
      'near',
      'c',
      'd',
    ])
    expect(show('"*^:()-')).toEqual([])
    expect(show('***')).toEqual([])
  })

  it('drops stop words unless nothing else is left, but keeps phrases and prefixes', () => {
    expect(show('why does the build fail with EADDRINUSE')).toEqual(['build', 'fail', 'eaddrinus', '*eaddrinuse'])
    expect(show('is_valid ')).toEqual(['is_valid', '"is valid"', 'valid'])
    expect(show('how to ')).toEqual(['how', 'to'])
  })
})

type Item = {id: string; title: string; score: number; body?: string}
type Result = {items: Item[]; total: number; tokens_used?: number; truncated?: boolean}

describe('forgiving search through HTTP', () => {
  let d: TestDaemon
  const ids: Record<string, string> = {}
  const add = async (name: string, entry: {title: string; body: string; tags?: string[]; scope?: string}, key?: string): Promise<void> => {
    const res = await d.request('POST', '/knowledge', {body: {scope: 'global', ...entry}, ...(key ? {key} : {})})
    expect(res.status, res.text).toBe(201)
    ids[name] = res.body.id
  }
  const search = async (q: string, extra: Record<string, string | number | boolean> = {}, key?: string): Promise<Result> => {
    const res = await d.request('GET', '/search', {query: {q, ...extra}, ...(key ? {key} : {})})
    expect(res.status, res.text).toBe(200)
    return res.body
  }
  const names = (r: Result): string[] => r.items.map((i) => Object.keys(ids).find((k) => ids[k] === i.id) ?? i.id)
  let ann: string

  beforeAll(async () => {
    d = await startInProcessDaemon()
    ann = await newPrincipal(d, 'ann')
    await add('daemon', {title: 'Daemon will not start', body: 'kb daemon run exits at once when the lock is held.'})
    await add('port', {
      title: 'Port already in use',
      body: 'listen EADDRINUSE: address already in use 127.0.0.1:7000. Another process holds the port.',
    })
    await add('pool', {
      title: 'Connection pool tuning',
      body: 'Set max_idle_conns to 10; the pool otherwise keeps idle connections forever.',
    })
    await add('scattered', {title: 'Idle thoughts', body: 'The max of the conns count went up while the server sat idle.'})
    await add('fooBar', {title: 'Calling the helper', body: 'Call foo.bar() before the first request.'})
    await add('flag', {title: 'Noisy logs', body: 'Run with --verbose to see every request; the log lines name src/server/app.ts.'})
    await add('socket', {title: 'Bad port number', body: 'node:http throws ERR_SOCKET_BAD_PORT when the port is out of range.'})
    await add('camel', {title: 'User lookup', body: 'getUserName returns null for deleted accounts.'})
    await add('operators', {title: 'NOT found AND friends', body: 'Queries with "quotes", stars* and col:val (parens) -minus NEAR words.'})
    await add('private', {title: 'Daemonset worker secrets', body: 'A private note about the daemonset worker.', scope: 'private'}, ann)
    await add('big1', {title: 'Long postmortem one', body: 'incident '.repeat(3000)})
    await add('big2', {title: 'Long postmortem two', body: 'incident '.repeat(3000)})
  })
  afterAll(async () => {
    await d.stop()
  })

  it('completes the word being typed, below an exact match of a word', async () => {
    expect(names(await search('daem'))).toEqual(['daemon'])
    expect((await search('daem ')).total).toBe(0) // a finished word: no completion (and too short for a typo)
    expect((await search('daem .')).total).toBe(0)
    // "daemon" typed whole counts fully; "daemonset" (a completion) counts half.
    const r = await search('daemon', {}, ann)
    expect(names(r)).toEqual(['daemon', 'private'])
    expect(r.items[0]!.score).toBeGreaterThan(r.items[1]!.score)
  })

  it('finds code tokens whole and by parts, whole matches first', async () => {
    expect(names(await search('EADDRINUSE'))).toEqual(['port'])
    expect(names(await search('eaddrinuse'))).toEqual(['port'])
    const pool = await search('max_idle_conns')
    expect(names(pool).slice(0, 2)).toEqual(['pool', 'scattered'])
    expect(pool.items[0]!.score).toBeGreaterThan(pool.items[1]!.score)
    expect(names(await search('idle ')).sort()).toEqual(['pool', 'scattered'])
    expect(names(await search('bar '))).toEqual(['fooBar'])
    expect(names(await search('foo.bar()'))).toEqual(['fooBar'])
    expect(names(await search('--verbose'))).toEqual(['flag'])
    expect(names(await search('src/server/app.ts'))[0]).toBe('flag')
    expect(names(await search('node:http'))[0]).toBe('socket')
    expect(names(await search('ERR_SOCKET_BAD_PORT'))[0]).toBe('socket')
    expect(names(await search('socket '))).toEqual(['socket'])
    expect(names(await search('getUserName'))[0]).toBe('camel') // its parts alone ("name" in flag) rank below
  })

  it('never turns FTS5 syntax in the query into an error', async () => {
    const nasty = [
      'NOT found AND',
      '"quotes',
      'stars*',
      'col:val',
      '(parens',
      'NEAR(words 2)',
      '-minus',
      '^start',
      'a OR',
      '"',
      '*',
      '(',
      ')',
      ':',
      '^',
      '-',
      'AND',
      'OR NOT',
      '""""',
      'title:x',
      '{title}: x',
      'x NEAR/3 y',
    ]
    for (const q of nasty) {
      const res = await d.request('GET', '/search', {query: {q}})
      expect(res.status, `${q}: ${res.text}`).toBe(200)
    }
    expect(names(await search('NOT found AND'))[0]).toBe('operators')
    expect(names(await search('col:val'))[0]).toBe('operators')
  })

  it('answers natural-language questions holding only some of the words, inflected or misspelt', async () => {
    expect(names(await search('why does the daemon refuse starting after an upgrade'))[0]).toBe('daemon')
    expect(names(await search('another process is holding my ports'))[0]).toBe('port')
    expect(names(await search('conection pol tunning'))[0]).toBe('pool') // typos in the longer words
  })

  it('keeps visibility and filters with completions and typo corrections', async () => {
    // The owner does not see ann's private entry, however it is spelt.
    for (const q of ['daemons', 'daemonsett worker', 'daemonset']) expect(names(await search(q))).not.toContain('private')
    expect(names(await search('daemons', {}, ann))).toContain('private')
    expect(names(await search('daemonsett worker', {}, ann))).toContain('private')
    expect(names(await search('daemons', {scope: 'global'}, ann))).not.toContain('private')
    expect((await search('daemo', {status: 'resolved'})).total).toBe(0)
  })

  it('never exceeds a token budget, even with detail=full on big entries', async () => {
    for (const max of [1, 50, 400, 2000, 5000, 100_000]) {
      const r = await search('incident postmortem', {detail: 'full', max_tokens: max})
      expect(r.tokens_used).toBeLessThanOrEqual(max)
      if (r.items.length < 2) expect(r.truncated).toBe(true)
    }
    const all = await search('incident postmortem', {detail: 'full', max_tokens: 100_000})
    expect(all.items.length).toBe(2)
    expect(all.truncated).toBe(false)
  })
})
