/**
 * @module Trust survives backup → restore (issue 26 §6; docs/operations.md, "Restore a backup"): anchors with their
 * checks, open flags, verifications and a project's verify_after_days are in `GET /backup`, and a data directory
 * restored from it gives the same freshness and confidence as when the backup was taken — what changed after the
 * backup is gone. SQLite only: a team server backs up with pg_dump (`GET /backup` is 409 there).
 */
import {mkdirSync, readdirSync, renameSync, rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {newPrincipal, startInProcessDaemon, tempDir, type TestDaemon} from '../../helpers/daemon.js'
import {createEntry, joinProject} from '../endpoints/support.js'

const dirs: string[] = []
afterAll(() => {
  for (const d of dirs) rmSync(d, {recursive: true, force: true})
})

const TRUST_FIELDS = ['anchors', 'flags', 'freshness', 'confidence', 'version', 'updated_at'] as const

/** What a reader is told of an entry's trust, and the project's setting. */
async function trustOf(d: TestDaemon, ids: string[], projectId: string): Promise<unknown> {
  const entries: Record<string, unknown> = {}
  for (const id of ids) {
    const full = (await d.request('GET', `/knowledge/${id}`, {query: {detail: 'full'}})).body
    entries[id] = Object.fromEntries(TRUST_FIELDS.map((f) => [f, full[f]]))
  }
  return {entries, verify_after_days: (await d.request('GET', `/projects/${projectId}`)).body.verify_after_days}
}

describe('backup → restore', () => {
  it('keeps anchors and their checks, open flags, verifications and the project setting as they were at the backup', async () => {
    const dataDir = tempDir('kb-backup-trust-')
    dirs.push(dataDir)
    let d = await startInProcessDaemon({dataDir})
    try {
      const projectId = (await joinProject(d, 'git@github.com:acme/backup-trust.git')).id as string
      const ben = await newPrincipal(d, 'ben', projectId)
      expect((await d.request('PATCH', `/projects/${projectId}`, {body: {verify_after_days: 90}})).status).toBe(200)
      const anchors = [
        {path: 'src/db/pool.ts', lines: '40-62', commit: 'a1b2c3d', hash: 'a'.repeat(64)},
        {path: 'src/net/retry.ts', commit: 'a1b2c3d', hash: 'b'.repeat(64)},
      ]
      const stale = await createEntry(d, {title: 'Pool sizing', scope: 'project', project_id: projectId, anchors})
      const verified = await createEntry(d, {title: 'Retry with jitter', scope: 'project', project_id: projectId, anchors})
      const check = await d.request('POST', `/knowledge/${stale.id}/anchors/check`, {
        body: {
          commit: 'e5f6a7b',
          results: [
            {path: 'src/db/pool.ts', lines: '40-62', state: 'changed', hash: 'c'.repeat(64)},
            {path: 'src/net/retry.ts', state: 'moved', moved_to: {path: 'src/net/backoff.ts', lines: null}, hash: 'b'.repeat(64)},
          ],
        },
      })
      expect(check.status, check.text).toBe(200)
      expect((await d.request('POST', `/knowledge/${stale.id}/flags`, {key: ben, body: {reason: 'incorrect'}})).status).toBe(201)
      expect((await d.request('POST', `/knowledge/${verified.id}/verify`, {key: ben, body: {}})).status).toBe(200)
      const ids = [stale.id as string, verified.id as string]
      const atBackup = (await trustOf(d, ids, projectId)) as {entries: Record<string, any>}
      expect(atBackup.entries[stale.id].freshness.reasons.map((r: {kind: string}) => r.kind)).toEqual(['anchor_changed', 'flagged'])
      expect(atBackup.entries[verified.id].freshness).toMatchObject({state: 'fresh', verified_by: {name: 'ben'}})
      expect(atBackup.entries[stale.id].anchors[1]).toMatchObject({path: 'src/net/backoff.ts', state: 'moved', checked_commit: 'e5f6a7b'})

      const res = await fetch(`${d.url}/backup`, {headers: {authorization: `Bearer ${d.ownerKey}`}})
      expect(res.status).toBe(200)
      const backup = join(tempDir('kb-backup-file-'), 'kb-backup.sqlite')
      dirs.push(join(backup, '..'))
      writeFileSync(backup, Buffer.from(await res.arrayBuffer()))

      // After the backup: the flag withdrawn, the setting changed — a restore takes both back.
      expect((await d.request('DELETE', `/knowledge/${stale.id}/flags/mine`, {key: ben})).status).toBe(200)
      expect((await d.request('PATCH', `/projects/${projectId}`, {body: {verify_after_days: 30}})).status).toBe(200)
      expect(await trustOf(d, ids, projectId)).not.toEqual(atBackup)
      await d.stop()

      // The restore as docs/operations.md has it: the store's files aside, the backup in their place.
      const aside = join(dataDir, 'before-restore')
      mkdirSync(aside)
      for (const f of readdirSync(dataDir).filter((f) => f.startsWith('kb.sqlite'))) renameSync(join(dataDir, f), join(aside, f))
      renameSync(backup, join(dataDir, 'kb.sqlite'))
      d = await startInProcessDaemon({dataDir})
      expect(await trustOf(d, ids, projectId)).toEqual(atBackup)
    } finally {
      await d.stop()
    }
  })
})
