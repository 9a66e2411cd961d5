/**
 * @module The import contract (server/store/import-rules.ts): the rejections every driver gives a record the
 * store refuses, with the same reason, and nothing written — cases where SQLite and PostgreSQL had drifted apart
 * (a comment id twice in one record, a comment id already on another entry of the file) among them.
 */
import {randomUUID} from 'node:crypto'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'
import type {EntryRow, PrincipalRecord, Store} from '../../../server/store/store.js'
import type {ImportOptions, ImportRecord} from '../../../server/store/transfer-store.js'
import {entryRow} from '../../../bench/entry-row.js'
import type {Comment} from '../../../src/shared/types.js'

const at = '2026-01-02T03:04:05.000Z'

export function runImportContract(name: string, makeStore: () => Promise<Store>): void {
  describe(`Import contract: ${name}`, () => {
    let s: Store
    let owner: PrincipalRecord
    let member: PrincipalRecord

    beforeEach(async () => {
      s = await makeStore()
      owner = {id: randomUUID(), name: 'owner', role: 'owner', created_at: at}
      member = {id: randomUUID(), name: 'member', role: 'member', created_at: at}
      await s.insertPrincipal(owner)
      await s.insertPrincipal(member)
    })
    afterEach(async () => {
      await s.close()
    })

    const options = (by: PrincipalRecord, o: Partial<ImportOptions> = {}): ImportOptions => ({
      onConflict: 'overwrite',
      dryRun: false,
      at,
      importer: {id: by.id, name: by.name, owner: by.role === 'owner'},
      ...o,
    })

    const comment = (id: string, by: PrincipalRecord, body = 'a comment'): Comment => ({
      id,
      body,
      type: 'note',
      author: {id: by.id, name: by.name},
      created_at: at,
    })

    function record(line: number, by: PrincipalRecord, comments: Comment[] = []): ImportRecord {
      const row: EntryRow = entryRow({
        id: randomUUID(),
        title: `line ${line}`,
        body: 'body',
        author: {id: by.id, name: by.name},
        created_at: at,
      })
      const {comment_count: _count, flags: _flags, flagged_at: _at, ...rest} = row
      return {line, kind: 'entry', entry: {...rest, comments, open_flags: [], history: []}}
    }

    const idOf = (r: ImportRecord): string => (r.kind === 'entry' ? r.entry.id : r.project.id)

    it('refuses a record that carries one comment id twice, writing nothing', async () => {
      const cid = randomUUID()
      const twice = record(1, owner, [comment(cid, owner, 'first'), comment(cid, owner, 'second')])
      const outcome = await s.transfer.applyImport([twice], options(owner))
      expect(outcome.rejected).toEqual([{line: 1, reason: `comment ${cid} appears twice`}])
      expect(outcome.created).toBe(0)
      expect(await s.getEntry(idOf(twice))).toBeNull()
    })

    it('refuses a comment id that an earlier record of the file gave another entry, naming that entry', async () => {
      const cid = randomUUID()
      const first = record(1, owner, [comment(cid, owner)])
      const second = record(2, owner, [comment(cid, owner)])
      const outcome = await s.transfer.applyImport([first, second], options(owner))
      expect(outcome.rejected).toEqual([{line: 2, reason: `comment ${cid} already exists here on entry ${idOf(first)}`}])
      expect(await s.getEntry(idOf(first))).toBeNull()
    })

    it('lists every rule a member breaks, each on its line, in one outcome', async () => {
      const stranger = {id: randomUUID(), name: 'stranger'}
      const others = record(1, owner)
      const strangers = randomUUID()
      const ownWithStranger = record(2, member, [comment(strangers, {...member, ...stranger})])
      const project: ImportRecord = {
        line: 3,
        kind: 'project',
        project: {id: randomUUID(), name: 'p', remote: 'example.com/p', created_at: at, created_by: {id: owner.id, name: owner.name}},
      }
      const inMissingProject = record(4, member)
      if (inMissingProject.kind === 'entry') Object.assign(inMissingProject.entry, {scope: 'project', project_id: randomUUID()})
      const outcome = await s.transfer.applyImport([others, ownWithStranger, project, inMissingProject], options(member))
      const missing = inMissingProject.kind === 'entry' ? inMissingProject.entry.project_id : ''
      expect(outcome.rejected).toEqual([
        {
          line: 1,
          reason: `entry ${idOf(others)} is by owner (${owner.id}); only the owner may import entries of other authors`,
        },
        {
          line: 2,
          reason: `comment ${strangers}: author stranger (${stranger.id}) is not a principal of this server; only the owner may import other principals`,
        },
        {line: 4, reason: `project ${missing} is neither on this server nor on an earlier line of the file`},
      ])
      // The project line alone was fine, but any rejected line means nothing changed.
      expect(await s.getProject(idOf(project))).toBeNull()
    })

    it("refuses an owner's principal whose name another principal has here", async () => {
      const namesake = {id: randomUUID(), name: 'member'}
      const r = record(1, {...owner, ...namesake, role: 'member'})
      const outcome = await s.transfer.applyImport([r], options(owner))
      expect(outcome.rejected).toEqual([
        {line: 1, reason: `author ${namesake.id} is named member, but that name belongs to principal ${member.id} here`},
      ])
      expect(outcome.principals_created).toBe(0)
    })
  })
}
