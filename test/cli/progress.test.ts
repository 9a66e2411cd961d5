/**
 * Progress on long work, end to end: on a pseudo-terminal `kb import`, `kb export` and `kb backup` draw a
 * progress line on stderr (entries and bytes against the total) and clear it, and an autostart slower than
 * 300 ms shows a spinner; piped or with --json, stdout carries only the data and stderr at most one line.
 */
import {randomUUID} from 'node:crypto'
import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {ChildDaemon} from '../helpers/daemon.js'
import {cleanup, freePort, kb, kbTty, makeUser, type KbEnv, userWithDaemon} from './helpers.js'

const ENTRIES = 1500
const SLOW_START = join(import.meta.dirname, 'fixtures', 'slow-daemon-start.mjs')

let d: ChildDaemon
let user: KbEnv
let file: string
const fresh: KbEnv[] = []

/** stderr lines that are not empty. */
const lines = (s: string): string[] => s.split('\n').filter((l) => l.trim() !== '')

beforeAll(async () => {
  ;({user, d} = await userWithDaemon({TERM: 'xterm-256color'}))
  file = join(user.root, 'many.jsonl')
  const body = 'A body long enough to make the file a few hundred kilobytes. '.repeat(4)
  const out = [JSON.stringify({kind: 'kb-export', version: 1})]
  for (let i = 0; i < ENTRIES; i++) out.push(JSON.stringify({kind: 'entry', id: randomUUID(), title: `Entry ${i}`, body, scope: 'global'}))
  writeFileSync(file, `${out.join('\n')}\n`)
})

afterAll(async () => {
  await d?.stop()
  for (const u of [user, ...fresh]) if (u) await cleanup(u)
})

describe('on a terminal', () => {
  it("kb import shows entries and bytes sent against the file size, then the server's work, and clears the line", async () => {
    const r = await kbTty(user, ['import', file, '--dry-run'])
    expect(r.code, r.stdout).toBe(0)
    expect(r.stdout).toMatch(/kb import {2}[\d,]+ entries · [\d.]+ (B|KiB|MiB) of [\d.]+ (KiB|MiB)/) // from 0 on: a fast upload may show no other count
    expect(r.stdout).toContain(`${ENTRIES.toLocaleString('en-US')} entries sent`)
    expect(r.stdout).toContain(`Dry run (nothing changed): would import ${ENTRIES} created`)
    // cli-progress clears its line when done (ESC[2K).
    expect(r.stdout).toContain('\u001b[2K')
  })

  it('kb export -o shows entries against the total its header announces', async () => {
    expect((await kb(user, ['import', file])).code).toBe(0)
    const out = join(user.root, 'out.jsonl')
    const r = await kbTty(user, ['export', '-o', out])
    expect(r.code, r.stdout).toBe(0)
    expect(r.stdout).toMatch(new RegExp(`kb export {2}[\\d,]+ of ${ENTRIES.toLocaleString('en-US')} entries · `))
    expect(r.stdout).toContain(`exported ${ENTRIES} entries`)
    expect(readFileSync(out, 'utf8').trim().split('\n')).toHaveLength(ENTRIES + 1)
  })

  it('kb backup shows the daemon taking its copy, the bytes against the size, and the check', async () => {
    const r = await kbTty(user, ['backup', join(user.root, 'b.sqlite')])
    expect(r.code, r.stdout).toBe(0)
    expect(r.stdout).toContain('kb backup  the daemon is taking a consistent copy of the store')
    expect(r.stdout).toMatch(/kb backup {2}[\d.]+ (B|KiB|MiB) of [\d.]+ (KiB|MiB)|kb backup {2}checking the copy/)
    expect(r.stdout).toContain('integrity check ok')
  })

  it('an autostart slower than 300 ms shows a spinner, then says it started', async () => {
    const u = makeUser({TERM: 'xterm-256color', KB_BASE_URL: `http://127.0.0.1:${await freePort()}/api/v1`})
    fresh.push(u)
    const r = await kbTty(u, ['list', '--no-pager'], {env: {NODE_OPTIONS: `--import=${SLOW_START}`}})
    expect(r.code, r.stdout).toBe(0)
    expect(r.stdout).toContain('kb: starting the kb daemon at 127.0.0.1')
    expect(r.stdout).toMatch(/starting the kb daemon at 127\.0\.0\.1:\d+\.\.\. started \(logs: `kb daemon logs`\)/)
  })
})

describe('piped or --json', () => {
  it('kb import and kb export: stdout holds only the result or the data, stderr at most one line', async () => {
    const imp = await kb(user, ['import', file, '--dry-run'])
    expect(imp.code, imp.stderr).toBe(0)
    expect(lines(imp.stdout)).toEqual([`Dry run (nothing changed): would import 0 created, 0 updated, ${ENTRIES} skipped`])
    expect(lines(imp.stderr).length).toBeLessThanOrEqual(1)
    const json = await kb(user, ['import', file, '--dry-run', '--json'])
    expect(JSON.parse(json.stdout)).toMatchObject({dry_run: true, skipped: ENTRIES})
    expect(lines(json.stderr).length).toBeLessThanOrEqual(1)
    const exp = await kb(user, ['export'])
    expect(exp.stdout.trim().split('\n')).toHaveLength(ENTRIES + 1)
    expect(JSON.parse(exp.stdout.split('\n')[0]!)).toMatchObject({kind: 'kb-export', entries: ENTRIES})
    expect(lines(exp.stderr).length).toBeLessThanOrEqual(1)
    const bak = await kb(user, ['backup', join(user.root, 'piped.sqlite'), '--json'])
    expect(JSON.parse(bak.stdout)).toMatchObject({entries: ENTRIES})
    expect(lines(bak.stderr).length).toBeLessThanOrEqual(1)
  })

  it('an autostart says nothing', async () => {
    const u = makeUser({KB_BASE_URL: `http://127.0.0.1:${await freePort()}/api/v1`})
    fresh.push(u)
    const r = await kb(u, ['list'], {env: {NODE_OPTIONS: `--import=${SLOW_START}`}})
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toBe('')
  })
})
