/**
 * kb export, kb import and kb backup through the built binary against child daemons: a move from one
 * store into another, a refused file (exit 1, nothing changed), and a verified backup of a live store.
 */
import {existsSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import Database from 'better-sqlite3'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {startChildDaemon, tempDir, type ChildDaemon} from '../helpers/daemon.js'
import {cleanup, kb, makeUser, type KbEnv} from './helpers.js'

let src: ChildDaemon
let dst: ChildDaemon
let user: KbEnv
let dstDir: string
let toSrc: Record<string, string>
let toDst: Record<string, string>

beforeAll(async () => {
  user = makeUser()
  dstDir = tempDir('kb-cli-transfer-dst-')
  ;[src, dst] = await Promise.all([startChildDaemon({dataDir: user.dataDir}), startChildDaemon({dataDir: dstDir})])
  toSrc = {KB_BASE_URL: src.url, KB_API_KEY: src.ownerKey}
  toDst = {KB_BASE_URL: dst.url, KB_API_KEY: dst.ownerKey}
  for (const [title, scope] of [
    ['Daemon port clash', 'global'],
    ['My private note', 'private'],
  ] as const) {
    const r = await kb(user, ['add', title, '--body', `about ${title}`, '--scope', scope, '--thought', 'hypothesis: a stale daemon'], {
      env: toSrc,
    })
    expect(r.code, r.stderr).toBe(0)
  }
}, 60_000)

afterAll(async () => {
  await Promise.all([src?.stop(), dst?.stop()])
  rmSync(dstDir, {recursive: true, force: true})
  if (user) await cleanup(user)
})

describe('kb export / kb import', () => {
  it('moves a store: export to a file, dry run, import, and a second import changes nothing', async () => {
    const file = join(user.root, 'kb.jsonl')
    const exp = await kb(user, ['export', '-o', file], {env: toSrc})
    expect(exp.code, exp.stderr).toBe(0)
    expect(existsSync(`${file}.partial`)).toBe(false)
    const recs = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
    expect(recs[0]).toMatchObject({kind: 'kb-export', version: 1})
    expect(
      recs
        .filter((r) => r.kind === 'entry')
        .map((r) => r.title)
        .sort(),
    ).toEqual(['Daemon port clash', 'My private note'])

    // To stdout, the same records.
    const out = await kb(user, ['export'], {env: toSrc})
    expect(out.code).toBe(0)
    expect(out.stdout.trim().split('\n').slice(1)).toEqual(readFileSync(file, 'utf8').trim().split('\n').slice(1))

    const dry = await kb(user, ['import', file, '--dry-run', '--json'], {env: toDst})
    expect(dry.code, dry.stderr).toBe(0)
    expect(JSON.parse(dry.stdout)).toMatchObject({created: 2, dry_run: true, rejected: []})
    const imp = await kb(user, ['import', file], {env: toDst})
    expect(imp.code, imp.stderr).toBe(0)
    expect(imp.stdout).toMatch(/^Imported: 2 created, 0 updated, 0 skipped/)
    const ids = recs.filter((r) => r.kind === 'entry').map((r) => r.id as string)
    const histories = async (): Promise<unknown[]> =>
      Promise.all(ids.map(async (id) => (await dst.request('GET', `/knowledge/${id}/history`)).body.items))
    const before = await histories()
    const again = await kb(user, ['import', '-', '--json'], {env: toDst, input: readFileSync(file, 'utf8')})
    expect(again.code, again.stderr).toBe(0)
    expect(JSON.parse(again.stdout)).toMatchObject({created: 0, updated: 0, skipped: 2, unchanged: 2})
    const third = await kb(user, ['import', file, '--on-conflict', 'overwrite'], {env: toDst})
    expect(third.code, third.stderr).toBe(0)
    expect(third.stdout).toMatch(/^Imported: 0 created, 0 updated, 2 skipped \(all unchanged\)/)
    // Nothing changed, so nothing was written to any entry's history.
    expect(await histories()).toEqual(before)
    const found = await kb(user, ['search', 'port clash', '--json'], {env: toDst})
    expect(JSON.parse(found.stdout).items.map((i: any) => i.title)).toEqual(['Daemon port clash'])
  })

  it('a file with a bad line imports nothing, lists the line and exits 1', async () => {
    const file = join(user.root, 'bad.jsonl')
    writeFileSync(
      file,
      `{"kind":"kb-export","version":1}\n{"kind":"entry","id":"0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7901","title":"ok","body":"b"}\nnot json\n`,
    )
    const r = await kb(user, ['import', file], {env: toDst})
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/nothing was imported; 1 line\(s\) rejected:\n {2}line 3: not valid JSON/)
    expect((await dst.request('GET', '/knowledge/0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7901')).status).toBe(404)
    const missing = await kb(user, ['import', join(user.root, 'nope.jsonl')], {env: toDst})
    expect(missing.code).toBe(2)
    expect(missing.stderr).toMatch(/cannot read .*nope\.jsonl: ENOENT/)
  })
})

describe('kb backup', () => {
  it('writes a verified copy of the live store that opens and holds the entries', async () => {
    const file = join(user.root, 'backup.sqlite')
    const r = await kb(user, ['backup', file, '--json'], {env: toSrc})
    expect(r.code, r.stderr).toBe(0)
    expect(JSON.parse(r.stdout)).toMatchObject({file, entries: 2})
    expect(existsSync(`${file}.partial`)).toBe(false)
    const db = new Database(file, {readonly: true})
    try {
      expect(db.pragma('integrity_check', {simple: true})).toBe('ok')
      expect(db.prepare('SELECT title FROM entries ORDER BY title').pluck().all()).toEqual(['Daemon port clash', 'My private note'])
    } finally {
      db.close()
    }
    // Only the owner may take one.
    const key = (await src.request('POST', '/api-keys', {body: {principal: 'dora'}})).body.key
    const refused = await kb(user, ['backup', join(user.root, 'dora.sqlite')], {env: {...toSrc, KB_API_KEY: key}})
    expect(refused.code).toBe(4)
    expect(refused.stderr).toMatch(/only the owner may take a backup/)
    expect(existsSync(join(user.root, 'dora.sqlite.partial'))).toBe(false)
  })
})
