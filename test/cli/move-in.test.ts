/**
 * @module Moving in (docs/team-server.md): a laptop's SQLite knowledge base — projects and members, entries of
 * two authors with comments, thought chains, resolutions and a fork, a private note — exported with `kb export`
 * and imported with `kb import` into a team server on PostgreSQL, through the built binary. Everything arrives
 * with its ids, search finds it on the team server, a second import changes nothing, and `kb backup` against
 * the team server says to use pg_dump.
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, expect, it} from 'vitest'
import {startChildDaemon, type ChildDaemon} from '../helpers/daemon.js'
import {useCluster} from '../helpers/postgres.js'
import {requireSystem} from '../helpers/system.js'
import {cleanup, kb, makeUser, type KbEnv} from './helpers.js'

requireSystem('postgres').describe('moving a local knowledge base into a team server on PostgreSQL', () => {
  const cluster = useCluster()
  let laptop: ChildDaemon
  let team: ChildDaemon
  let user: KbEnv
  let toLaptop: Record<string, string>
  let toTeam: Record<string, string>
  const ids: Record<string, string> = {}

  beforeAll(async () => {
    user = makeUser()
    const started = await Promise.all([
      startChildDaemon({dataDir: user.dataDir}),
      startChildDaemon({storeUrl: await cluster().createDatabase()}),
    ])
    laptop = started[0]
    team = started[1]
    toLaptop = {KB_BASE_URL: laptop.url, KB_API_KEY: laptop.ownerKey}
    toTeam = {KB_BASE_URL: team.url, KB_API_KEY: team.ownerKey}
    // The laptop's knowledge base, written through its API.
    const post = async (path: string, body: unknown, key = laptop.ownerKey): Promise<any> => {
      const res = await laptop.request('POST', path, {key, body})
      expect(res.status, res.text).toBeLessThan(300)
      return res.body
    }
    const project = await post('/projects/join', {remote: 'https://github.com/acme/pipeline.git'})
    const bob = (await post('/api-keys', {principal: 'bob', project_id: project.project.id})).key
    ids.project = project.project.id
    ids.global = (
      await post('/knowledge', {
        title: 'Flaky migration lock',
        body: 'Two deploys ran migrations at once; advisory locks fixed it.',
        tags: ['postgres', 'deploy'],
        scope: 'global',
        thought_chain: [
          {kind: 'hypothesis', thought: 'two runners'},
          {kind: 'conclusion', thought: 'pg_advisory_lock around migrate'},
        ],
      })
    ).id
    await post(`/knowledge/${ids.global}/comments`, {body: 'Same on staging.', type: 'supplement'}, bob)
    await post(`/knowledge/${ids.global}/resolve`, {note: 'lock added', url: 'https://github.com/acme/pipeline/pull/7'})
    ids.project_entry = (
      await post(
        '/knowledge',
        {title: 'Pipeline cache poisoning', body: 'A stale node_modules cache broke the build.', project_id: ids.project, scope: 'project'},
        bob,
      )
    ).id
    ids.fork = (await post(`/knowledge/${ids.global}/fork`, {title: 'Migration lock on MySQL', scope: 'global'})).id
    ids.private = (await post('/knowledge', {title: 'My private reminder', body: 'Rotate the staging password.'})).id
  }, 120_000)
  afterAll(async () => {
    await Promise.all([laptop?.stop(), team?.stop()])
    if (user) await cleanup(user)
  })

  it('exports from SQLite, imports into PostgreSQL with every record intact, and imports again as a no-op', async () => {
    const file = join(user.root, 'mine.jsonl')
    const exported = await kb(user, ['export', '-o', file], {env: toLaptop})
    expect(exported.code, exported.stderr).toBe(0)
    expect(readFileSync(file, 'utf8').trim().split('\n')).toHaveLength(1 + 1 + 4)

    const dry = await kb(user, ['import', file, '--dry-run', '--json'], {env: toTeam})
    expect(dry.code, dry.stderr).toBe(0)
    expect(JSON.parse(dry.stdout)).toMatchObject({created: 5, rejected: [], dry_run: true})
    expect((await team.request('GET', `/knowledge/${ids.global}`)).status).toBe(404)

    const imported = await kb(user, ['import', file, '--json'], {env: toTeam})
    expect(imported.code, imported.stderr).toBe(0)
    // The project and four entries; bob becomes a principal of the team server.
    expect(JSON.parse(imported.stdout)).toMatchObject({created: 5, updated: 0, skipped: 0, principals_created: 1, rejected: []})

    for (const id of [ids.global, ids.project_entry, ids.fork]) {
      const [before, after] = await Promise.all([
        laptop.request('GET', `/knowledge/${id}`, {query: {detail: 'full'}}),
        team.request('GET', `/knowledge/${id}`, {query: {detail: 'full'}}),
      ])
      expect(after.status).toBe(200)
      // The local owner's writing becomes the importing owner's (another id, the same name); everything else is as it
      // was but the web page, which is each server's own.
      const strip = (e: unknown): unknown =>
        JSON.parse(
          JSON.stringify(e, (k, v) => (k === 'web_url' ? undefined : v?.name === 'owner' && typeof v.id === 'string' ? 'the owner' : v)),
        )
      expect(strip(after.body)).toEqual(strip(before.body))
    }
    const projects = await team.request('GET', '/projects')
    expect(projects.body.items.map((p: {id: string}) => p.id)).toEqual([ids.project])

    // The search index and its statistics were built by the import.
    const found = await kb(user, ['search', 'migration lock', '--json'], {env: toTeam})
    expect(
      JSON.parse(found.stdout)
        .items.map((i: {id: string}) => i.id)
        .sort(),
    ).toEqual([ids.global, ids.fork].sort())
    const typo = await team.request('GET', '/search', {query: {q: 'poisonning cache'}})
    expect(typo.body.items[0].id).toBe(ids.project_entry)

    const again = await kb(user, ['import', file, '--json'], {env: toTeam})
    expect(JSON.parse(again.stdout)).toMatchObject({created: 0, updated: 0, skipped: 5})
  })

  it('kb backup against the team server explains that PostgreSQL is backed up with pg_dump', async () => {
    const r = await kb(user, ['backup', join(user.root, 'team.sqlite')], {env: toTeam})
    expect(r.code).toBe(5)
    expect(r.stderr).toMatch(/PostgreSQL/)
    expect(r.stderr).toMatch(/pg_dump/)
    // The hint is the fallback that works on any server, not the one for an entry's conflict.
    expect(r.stderr).toMatch(/`kb export -o <file>`/)
    expect(r.stderr).not.toMatch(/kb show/)
  })
})
