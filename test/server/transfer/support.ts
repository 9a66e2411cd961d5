/**
 * @module Shared pieces of the transfer tests: a populated store (projects, members, private, project and
 * global entries, comments by several principals, thought chains, a resolution, a fork) and NDJSON helpers.
 */
import {join} from 'node:path'
import Database from 'better-sqlite3'
import pg from 'pg'
import {expect} from 'vitest'
import {newPrincipal, type HttpResult, type TestDaemon} from '../../helpers/daemon.js'

export interface Populated {
  projectId: string
  aliceKey: string
  aliceId: string
  ownerId: string
  entryIds: string[]
}

/** Fills a daemon with one of everything an export must carry. */
export async function populate(d: TestDaemon): Promise<Populated> {
  const join = await d.request('POST', '/projects/join', {body: {remote: 'git@github.com:acme/api.git'}})
  expect(join.status).toBe(201)
  const projectId = join.body.project.id as string
  const aliceKey = await newPrincipal(d, 'alice', projectId)
  const me = (key?: string) => d.request('GET', '/api-keys', {...(key ? {key} : {})})
  const aliceId = (await me(aliceKey)).body.items[0].principal.id as string
  const ownerId = (await me()).body.items[0].principal.id as string
  const ids: string[] = []
  const add = async (body: object, key?: string): Promise<string> => {
    const r = await d.request('POST', '/knowledge', {body, ...(key ? {key} : {})})
    expect(r.status, r.text).toBe(201)
    ids.push(r.body.id)
    return r.body.id
  }
  const root = await add(
    {
      title: 'EADDRINUSE on port 7411',
      body: '# Port taken\n\nAnother daemon holds **7411** — stop it. «données» 😀',
      tags: ['daemon', 'Port'],
      scope: 'project',
      project_id: projectId,
      url: 'https://github.com/acme/api/issues/1',
      thought_chain: [
        {thought: 'the port is taken', kind: 'observation'},
        {thought: 'an old daemon', kind: 'hypothesis'},
        {thought: 'kill it', kind: 'conclusion'},
      ],
    },
    aliceKey,
  )
  await add({title: 'Owner private note', body: 'only the owner sees this', scope: 'private'})
  await add({title: 'Alice private note', body: 'only alice sees this', scope: 'private'}, aliceKey)
  const global = await add({title: 'Global: flaky CI on Mondays', body: 'Cron overlaps the nightly build.', scope: 'global', tags: ['ci']})
  expect((await d.request('POST', `/knowledge/${root}/comments`, {body: {body: 'Seen it too', type: 'supplement'}})).status).toBe(201)
  expect(
    (await d.request('POST', `/knowledge/${root}/comments`, {body: {body: 'Is it 7412 now?', type: 'question'}, key: aliceKey})).status,
  ).toBe(201)
  expect(
    (await d.request('POST', `/knowledge/${global}/resolve`, {body: {note: 'moved the cron', url: 'https://example.com/pr/2'}})).status,
  ).toBe(200)
  const fork = await d.request('POST', `/knowledge/${root}/fork`, {body: {title: 'Port clash on CI', scope: 'global'}})
  expect(fork.status).toBe(201)
  ids.push(fork.body.id)
  return {projectId, aliceKey, aliceId, ownerId, entryIds: ids}
}

export function lines(text: string): any[] {
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l))
}

export function toNdjson(records: unknown[]): string {
  return records.map((r) => JSON.stringify(r)).join('\n') + '\n'
}

/** GET /export as text (the shared helper would try to parse x-ndjson as one JSON document). */
export async function exportText(d: TestDaemon, query: Record<string, string> = {}, key?: string): Promise<string> {
  const u = new URL(`${d.url}/export`)
  for (const [k, v] of Object.entries(query)) u.searchParams.set(k, v)
  const r = await fetch(u, {headers: {authorization: `Bearer ${key ?? d.ownerKey}`}})
  const text = await r.text()
  expect(r.status, text).toBe(200)
  expect(r.headers.get('content-type')).toMatch(/^application\/x-ndjson/)
  return text
}

export async function importText(
  d: TestDaemon,
  text: string | Buffer,
  query: Record<string, string | boolean> = {},
  key?: string,
): Promise<Pick<HttpResult, 'status' | 'body' | 'text'>> {
  const r = await d.request('POST', '/import', {raw: text, contentType: 'application/x-ndjson', query, ...(key ? {key} : {})})
  return {status: r.status, body: r.body, text: r.text}
}

/**
 * The export's records without the header, sorted, for comparing content (order aside). An import adds an `imported`
 * record to each entry's history (docs/api.md, "History"): left out here, as the header is.
 */
export function content(text: string): string[] {
  return lines(text)
    .filter((r) => r.kind !== 'kb-export')
    .map((r) => (r.history ? {...r, history: r.history.filter((h: any) => h.action !== 'imported')} : r))
    .map((r) => JSON.stringify(r))
    .sort()
}

/** Sets an entry's body in the store itself, as a kb from before safe publish could have stored it (never scanned). */
export async function storeUnscanned(d: TestDaemon, id: string, body: string): Promise<void> {
  if (d.storeUrl) {
    const c = new pg.Client({connectionString: d.storeUrl})
    await c.connect()
    try {
      await c.query('UPDATE entries SET body = $1 WHERE id = $2', [body, id])
    } finally {
      await c.end()
    }
    return
  }
  const db = new Database(join(d.dataDir, 'kb.sqlite'))
  try {
    db.prepare('UPDATE entries SET body = ? WHERE id = ?').run(body, id)
  } finally {
    db.close()
  }
}
