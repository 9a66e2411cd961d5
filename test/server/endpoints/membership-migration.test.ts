/**
 * @module Membership's migration (SQLite 10, PostgreSQL 6) on a store an older kb wrote, on both drivers: the store is
 * taken back to the schema before it (no request or invitation tables, a creator recorded as a plain member), and a
 * new daemon opened on it keeps every membership, makes creators maintainers, and asks newcomers for approval.
 */
import {rmSync} from 'node:fs'
import {afterAll, describe, expect, it} from 'vitest'
import {POSTGRES_MIGRATIONS} from '../../../server/store/postgres-migrations.js'
import {SQLITE_MIGRATIONS} from '../../../server/store/sqlite-migrations.js'
import {newPrincipal, queryStore, startInProcessDaemon, tempDir} from '../../helpers/daemon.js'
import {createEntry} from './support.js'

const REMOTE = 'git@github.com:acme/migrated.git'

describe('membership migration of an existing store', () => {
  const dataDir = tempDir('kb-members-migration-')
  afterAll(() => rmSync(dataDir, {recursive: true, force: true}))

  it('keeps current members, makes creators maintainers, and closes joining to newcomers', async () => {
    // The old store: an open daemon, as every daemon was before membership; ann created the project, ben joined it.
    const old = await startInProcessDaemon({dataDir, openProjects: true})
    const ann = await newPrincipal(old, 'ann')
    const ben = await newPrincipal(old, 'ben')
    const projectId = (await old.request('POST', '/projects/join', {key: ann, body: {remote: REMOTE}})).body.project.id as string
    expect((await old.request('POST', '/projects/join', {key: ben, body: {remote: REMOTE}})).status).toBe(200)
    const secret = await createEntry(old, {title: 'Migrated secret', body: 'For members.', scope: 'project', project_id: projectId}, ann)
    await old.stop()

    // Back to the schema before membership; the creator's row as a plain member, which the migration must mend.
    const postgres = old.storeUrl !== undefined
    const step = (postgres ? POSTGRES_MIGRATIONS : SQLITE_MIGRATIONS).findIndex((m) => m.includes('CREATE TABLE project_requests'))
    expect(step).toBeGreaterThan(0)
    // What came after membership goes too (supersede, the server's secrets, history, the claims' lease, similar pairs, web sessions, short ids, the review tally, the similar-pairs backfill), so every step from it runs again.
    await queryStore(old, 'DROP TABLE similar_backfill')
    if (postgres) for (const f of ['insert', 'update', 'delete']) await queryStore(old, `DROP FUNCTION review_tally_${f} CASCADE`)
    else for (const f of ['insert', 'update', 'delete']) await queryStore(old, `DROP TRIGGER entries_tally_${f}`)
    await queryStore(old, 'DROP TABLE review_tally')
    await queryStore(old, 'DROP INDEX entries_fresh_at')
    await queryStore(old, 'DROP INDEX entries_used_at')
    await queryStore(old, 'DROP TABLE short_ids')
    await queryStore(old, 'DROP INDEX entries_id_tail')
    await queryStore(old, 'ALTER TABLE entries DROP COLUMN id_tail')
    await queryStore(old, 'DROP TABLE web_sessions')
    if (postgres) {
      await queryStore(old, 'ALTER TABLE idempotency_keys DROP COLUMN holder_pid')
      await queryStore(old, 'ALTER TABLE idempotency_keys DROP COLUMN holder_started')
    }
    await queryStore(old, 'DROP TABLE similar_pairs')
    await queryStore(old, 'DROP INDEX IF EXISTS entries_review')
    await queryStore(old, 'ALTER TABLE entries DROP COLUMN anchors_stale')
    await queryStore(old, 'DROP TABLE history')
    await queryStore(old, 'DROP INDEX entries_retrieved')
    await queryStore(old, 'ALTER TABLE entries DROP COLUMN retrieved')
    await queryStore(old, 'ALTER TABLE entries DROP COLUMN last_retrieved_at')
    await queryStore(old, 'DROP TABLE server_secrets')
    await queryStore(old, 'DROP INDEX entries_superseded_by')
    await queryStore(old, 'ALTER TABLE entries DROP COLUMN superseded_by')
    await queryStore(old, 'DROP TABLE invitations')
    await queryStore(old, 'DROP TABLE project_requests')
    await queryStore(old, "UPDATE memberships SET role = 'member'")
    await queryStore(old, postgres ? `UPDATE kb_schema SET version = ${step}` : `PRAGMA user_version = ${step}`)

    const d = await startInProcessDaemon({dataDir, ...(old.storeUrl ? {storeUrl: old.storeUrl} : {})})
    try {
      const roles = await queryStore<{principal_id: string; role: string}>(
        d,
        'SELECT principal_id, role FROM memberships WHERE project_id = ?',
        [projectId],
      )
      expect(roles.map((r) => r.role).sort()).toEqual(['maintainer', 'member'])
      const projectOf = async (key: string): Promise<unknown> => (await d.request('GET', `/projects/${projectId}`, {key})).body.role
      expect(await projectOf(ann)).toBe('maintainer')
      expect(await projectOf(ben)).toBe('member')
      expect((await d.request('GET', `/knowledge/${secret.id}`, {key: ben})).status).toBe(200)
      // Joining is closed now: a newcomer's join waits for ann.
      const cat = await newPrincipal(d, 'cat')
      const asked = await d.request('POST', '/projects/join', {key: cat, body: {remote: REMOTE}})
      expect(asked.status).toBe(202)
      expect((await d.request('GET', `/knowledge/${secret.id}`, {key: cat})).status).toBe(404)
      const pending = await d.request('GET', `/projects/${projectId}/requests`, {key: ann})
      expect(pending.body.items.map((r: {principal: {name: string}}) => r.principal.name)).toEqual(['cat'])
    } finally {
      await d.stop()
    }
  })
})
