/**
 * TTY versus piped output: under a real pseudo-terminal (util-linux `script`) kb prints aligned tables
 * with headers and colour (none with NO_COLOR), asks before deleting and opens $EDITOR; piped it prints
 * tab-separated rows without header or colour.
 */
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {ChildDaemon} from '../helpers/daemon.js'
import {ANSI_RE, cleanup, kb, kbTty, type KbEnv, userWithDaemon} from './helpers.js'

let d: ChildDaemon
let user: KbEnv
const ids: string[] = []

beforeAll(async () => {
  ;({user, d} = await userWithDaemon({TERM: 'xterm'}))
  for (const [title, scope] of [
    ['SQLite database is locked', 'global'],
    ['Daemon port already in use', 'private'],
  ] as const) {
    ids.push(
      (await d.request('POST', '/knowledge', {body: {title, body: `${title}: what happened and the fix.`, scope, tags: ['ops']}})).body.id,
    )
  }
})

afterAll(async () => {
  await d?.stop()
  if (user) await cleanup(user)
})

describe('on a terminal', () => {
  it('prints an aligned table with a header and colour', async () => {
    const r = await kbTty(user, ['list'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(ANSI_RE)
    const lines = r.stdout.replace(new RegExp(ANSI_RE.source, 'g'), '').trimEnd().split('\n')
    expect(lines[0]).toMatch(/^ID\s+STATUS\s+FRESH\s+SCOPE\s+TITLE\s+UPDATED$/)
    const titleCol = lines[0]!.indexOf('TITLE')
    expect(lines).toHaveLength(3)
    for (const l of lines.slice(1)) {
      expect(l.includes('\t')).toBe(false)
      expect(l.slice(titleCol)).toMatch(/^(SQLite database is locked|Daemon port already in use)/)
    }
  })

  it('has no colour with NO_COLOR', async () => {
    const r = await kbTty(user, ['search', 'database', 'locked'], {env: {NO_COLOR: '1'}})
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).not.toMatch(ANSI_RE)
    expect(r.stdout).toMatch(/^ID\s+SCORE\s+STATUS\s+FRESH\s+TITLE\n/)
    expect(r.stdout).toContain('SQLite database is locked')
  })

  it('asks before deleting and keeps the entry on "n"', async () => {
    const no = await kbTty(user, ['delete', ids[1]!], {input: 'n\n'})
    expect(no.stdout).toContain('Delete "Daemon port already in use"')
    expect(no.code, no.stderr).toBe(2)
    expect((await d.request('GET', `/knowledge/${ids[1]}`)).status).toBe(200)
    const yes = await kbTty(user, ['delete', ids[1]!], {input: 'y\n'})
    expect(yes.code, yes.stderr).toBe(0)
    expect((await d.request('GET', `/knowledge/${ids[1]}`)).status).toBe(404)
  })

  it('edits in $EDITOR', async () => {
    const editor = join(user.root, 'editor.sh')
    writeFileSync(
      editor,
      '#!/bin/sh\nsed -i -e "s/^title: .*/title: SQLite says database is locked/" -e "s/^tags: .*/tags: ops, sqlite/" "$1"\n',
      {mode: 0o755},
    )
    const r = await kbTty(user, ['edit', ids[0]!], {env: {EDITOR: editor}})
    expect(r.code, r.stderr).toBe(0)
    const e = (await d.request('GET', `/knowledge/${ids[0]}`)).body
    expect(e).toMatchObject({title: 'SQLite says database is locked', tags: ['ops', 'sqlite'], version: 2})
    expect(e.body).toBe('SQLite database is locked: what happened and the fix.')
  })
})

describe('piped', () => {
  it('prints tab-separated rows, id first, without header or colour', async () => {
    const r = await kb(user, ['search', 'database', 'locked'], {env: {FORCE_COLOR: '1'}})
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).not.toMatch(ANSI_RE)
    const rows = r.stdout
      .trimEnd()
      .split('\n')
      .map((l) => l.split('\t'))
    expect(rows[0]![0]).toBe(ids[0])
    // id, score, status, title, and the freshness word last, so `cut -f1-4` keeps its meaning.
    expect(rows[0]).toHaveLength(5)
    expect(rows[0]![4]).toBe('fresh')
    expect(rows.some((row) => row[0] === 'ID')).toBe(false)
  })

  it('prints nothing on stdout for an empty result, so `wc -l` says 0', async () => {
    const r = await kb(user, ['search', 'zebra', 'xylophone'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toBe('')
  })
})
