/**
 * @module Search that speaks code and every script, through the HTTP API (docs/search.md, "Tokens"): every
 * identifier form finds its entry by the whole and by a part, the whole first; error codes and numbers match
 * exactly; CJK words inside sentences, Korean nouns with particles and German words in either spelling find
 * their entries in the top 3, whole words above partial ones. The tokenizer's output itself is pinned too.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {indexTerms} from '../../../server/search/tokenizer.js'
import {startInProcessDaemon, type TestDaemon} from '../../helpers/daemon.js'

describe('the tokenizer', () => {
  it('indexes a code token whole, then its parts, then its other forms', () => {
    expect(indexTerms('getUserName')).toEqual(['getusername', 'get', 'user', 'name'])
    expect(indexTerms('XMLHttpRequest')).toEqual(['xmlhttprequest', 'xml', 'http', 'request'])
    expect(indexTerms('max_idle_conns')).toEqual(['max_idle_conns', 'max', 'idl', 'conn'])
    expect(indexTerms('--max-old-space-size=4096')).toEqual(['max-old-space-size', 'max', 'old', 'space', 'size', '4096'])
    expect(indexTerms('src/server/app.ts')).toEqual(['src/server/app.ts', 'src', 'server', 'app', 'ts', 'app.ts'])
    expect(indexTerms('std::vector::push_back')).toEqual(['std::vector::push_back', 'std', 'vector', 'push', 'back', 'push_back'])
    expect(indexTerms('HikariPool-1')).toEqual(['hikaripool-1', 'hikari', 'pool', '1', 'hikaripool'])
    expect(indexTerms('v20.19.0')).toEqual(['v20.19.0', '20', '19', '0', '20.19.0', '20.19'])
    expect(indexTerms('127.0.0.1:5432')).toEqual(['127.0.0.1:5432', '127', '0', '0', '1', '5432', '127.0.0.1'])
    expect(indexTerms('ECONNREFUSED E0432 502 (ERR_REQUIRE_ESM)')).toEqual([
      'econnrefus',
      'e0432',
      '502',
      'err_require_esm',
      'err',
      'requir',
      'esm',
    ])
  })

  it('indexes CJK runs as bigrams, German words in both spellings, and keeps Latin words of mixed text stemmed', () => {
    expect(indexTerms('文字化け')).toEqual(['文字', '字化', '化け'])
    expect(indexTerms('한글이 깨지는')).toEqual(['한글', '글이', '깨지', '지는'])
    expect(indexTerms('後')).toEqual(['後'])
    expect(indexTerms('ﾃﾞﾌﾟﾛｲ')).toEqual(['デプ', 'プロ', 'ロイ'])
    expect(indexTerms('Fußgänger')).toEqual(['fussgang', 'fussgaeng'])
    expect(indexTerms('UTF-8 BOM 付き CSVs exported')).toEqual(['utf-8', 'utf', '8', 'bom', '付き', 'csv', 'export'])
  })

  it('costs time in proportion to the text, whatever its shape', () => {
    for (const shape of ['aB', 'a_', 'a::', '1.', 'Ab1_', '文字', 'ä ', ' ']) {
      const started = performance.now()
      indexTerms(shape.repeat(100_000 / shape.length))
      expect(performance.now() - started, shape).toBeLessThan(3_000)
    }
  })
})

type Result = {items: Array<{id: string; score: number}>; total: number}

describe('search by identifiers, codes, CJK and German through HTTP', () => {
  let d: TestDaemon
  const ids: Record<string, string> = {}
  const add = async (name: string, title: string, body: string): Promise<void> => {
    const res = await d.request('POST', '/knowledge', {body: {title, body, scope: 'private'}})
    expect(res.status, res.text).toBe(201)
    ids[name] = res.body.id
  }
  const search = async (q: string): Promise<string[]> => {
    const res = await d.request('GET', '/search', {query: {q: `${q} `, limit: 20}})
    expect(res.status, res.text).toBe(200)
    return (res.body as Result).items.map((i) => Object.keys(ids).find((k) => ids[k] === i.id) ?? i.id)
  }

  beforeAll(async () => {
    d = await startInProcessDaemon()
    await add('camel', 'TypeError: getUserName is not a function', 'The profile page crashed after the refactor.')
    await add(
      'camelWords',
      'The user name field is empty',
      'Users without a display name show a blank header; get the name from the profile.',
    )
    await add('pascal', 'XMLHttpRequest is not defined in Jest', 'The node test environment has no browser globals.')
    await add('snake', 'Query fails on snake_case_column', 'The ORM maps camelCase properties to the snake_case_column of the table.')
    await add('kebab', 'Build needs more heap', 'Set NODE_OPTIONS=--max-old-space-size=4096 for the webpack step.')
    await add('dotted', 'os.path.join drops the base directory', 'An absolute second argument discards the first.')
    await add('slashed', 'Host check in src/server/app.ts', 'The daemon refuses names other than localhost.')
    await add('scoped', 'tokio::spawn needs a static future', 'Move owned data into the task.')
    await add('version', 'Node v20.19.0 loads ES modules with require', 'Drop the dynamic import shim.')
    await add('econn', 'connect ECONNREFUSED 127.0.0.1:5432', 'Postgres was not running.')
    await add('rust', 'error[E0432]: unresolved import', 'A mod declaration was missing.')
    await add('esm', 'Error [ERR_REQUIRE_ESM]: require() of ES Module', 'The package became ESM-only in its last major.')
    await add('status', 'Gateway answers 502', 'The upstream was down.')
    await add('port5020', 'Service listens on 5020', 'An internal port, not a status.')
    await add('ja', 'デプロイ後に文字化けする', 'サーバーのロケールが POSIX のままだった。')
    await add('jaPartial', '文字コードの設定', 'UTF-8 を指定する。')
    await add('zh', '数据库连接池耗尽导致服务超时', '报表查询占用连接。')
    await add('ko', '배포 후 한글이 깨지는 문제', '컨테이너에 로케일이 설치되어 있지 않았다.')
    await add('de', 'Fußgängerzone-Dienst liefert 502', 'Der Health-Check zeigte auf den falschen Pfad.')
    await add('mixed', 'UTF-8 BOM 付き CSV', 'Excel opens the exported files garbled without it.')
  })
  afterAll(async () => {
    await d.stop()
  })

  it.each([
    ['camel', 'getUserName', 'user'],
    ['pascal', 'XMLHttpRequest', 'request'],
    ['snake', 'snake_case_column', 'column'],
    ['kebab', '--max-old-space-size', 'space'],
    ['dotted', 'os.path.join', 'join'],
    ['slashed', 'src/server/app.ts', 'app.ts'],
    ['scoped', 'tokio::spawn', 'spawn'],
    ['version', 'v20.19.0', '20.19'],
    ['econn', '127.0.0.1:5432', '5432'],
    ['esm', 'ERR_REQUIRE_ESM', 'esm'],
  ])('%s: found first by the whole (%s) and found by a part (%s)', async (name, whole, part) => {
    expect((await search(whole))[0]).toBe(name)
    expect(await search(part)).toContain(name)
  })

  it('ranks the exact identifier above the same words written apart, and a word above the same word inside an identifier', async () => {
    expect((await search('getUserName')).slice(0, 2)).toEqual(['camel', 'camelWords'])
    const user = await search('user')
    expect(user.indexOf('camelWords')).toBeLessThan(user.indexOf('camel'))
  })

  it('finds a version by major.minor, with or without its v', async () => {
    for (const q of ['20.19', '20.19.0', 'node 20.19']) expect((await search(q))[0], q).toBe('version')
  })

  it('matches error codes and numbers exactly', async () => {
    expect(await search('ECONNREFUSED')).toEqual(['econn'])
    expect(await search('E0432')).toEqual(['rust'])
    expect(await search('E0433')).toEqual([]) // no typo tolerance for codes and numbers
    expect(await search('502')).toEqual(expect.arrayContaining(['status', 'de']))
    expect(await search('502')).not.toContain('port5020')
    expect(await search('5020')).toEqual(['port5020'])
  })

  it.each([
    ['文字化け', 'ja'],
    ['デプロイ', 'ja'],
    ['服务超时', 'zh'],
    ['连接池', 'zh'],
    ['한글', 'ko'],
    ['로케일', 'ko'],
    ['fussgaengerzone', 'de'],
    ['fussgangerzone', 'de'],
    ['Fußgängerzone', 'de'],
    ['付き CSV', 'mixed'],
    ['export csv', 'mixed'],
  ])('%s finds its entry in the top 3', async (q, name) => {
    expect((await search(q)).slice(0, 3)).toContain(name)
  })

  it('ranks a whole CJK word above entries holding only part of it', async () => {
    const r = await search('文字化け')
    expect(r.indexOf('ja')).toBeLessThan(r.indexOf('jaPartial'))
    expect(r).toContain('jaPartial')
  })
})
