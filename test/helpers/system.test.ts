/**
 * The system-part finder the skippable tests rely on: found on PATH (any of chromium's names; PostgreSQL's
 * two programs from one directory), missing otherwise or when hidden, and a missing part is an error under
 * KB_TEST_REQUIRE_ALL=1 rather than a skip.
 */
import {chmodSync, mkdirSync, rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, describe, expect, it, vi} from 'vitest'
import {tempDir} from './daemon.js'
import {findSystem, requireSystem} from './system.js'

const root = tempDir('kb-system-')
afterAll(() => rmSync(root, {recursive: true, force: true}))

function bin(dir: string, ...names: string[]): string {
  const d = join(root, dir)
  mkdirSync(d, {recursive: true})
  for (const n of names) {
    writeFileSync(join(d, n), '#!/bin/sh\n')
    chmodSync(join(d, n), 0o755)
  }
  return d
}

describe('findSystem', () => {
  it('finds a part on PATH, under any of its names, and reports it missing otherwise', () => {
    const empty = bin('empty')
    const some = bin('some', 'tmux', 'chromium-browser', 'dbus-run-session')
    expect(findSystem('tmux', {PATH: `${empty}:${some}`})).toEqual({part: 'tmux', path: join(some, 'tmux'), missing: null})
    expect(findSystem('chromium', {PATH: some}).path).toBe(join(some, 'chromium-browser'))
    expect(findSystem('tmux', {PATH: empty})).toEqual({part: 'tmux', path: null, missing: 'tmux not installed'})
    // Half a Secret Service is none.
    expect(findSystem('secret-service', {PATH: some}).missing).toMatch(/^a Secret Service .* not installed$/)
    // A file that is not executable does not count.
    const plain = join(root, 'plain')
    mkdirSync(plain)
    writeFileSync(join(plain, 'tmux'), '')
    expect(findSystem('tmux', {PATH: plain}).path).toBeNull()
  })

  it('finds PostgreSQL as the directory holding both initdb and pg_ctl', () => {
    const pg = bin('pg', 'initdb', 'pg_ctl')
    expect(findSystem('postgres', {PATH: pg}).path).toBe(pg)
    expect(findSystem('postgres', {PATH: `${bin('half', 'initdb')}`}).path).not.toBe(join(root, 'half'))
  })

  it('counts a part as missing when KB_TEST_HIDE_SYSTEM names it (or says all)', () => {
    const some = bin('hide', 'tmux', 'chromium')
    expect(findSystem('tmux', {PATH: some, KB_TEST_HIDE_SYSTEM: 'chromium, tmux'}).missing).toBe(
      'tmux not installed (hidden by KB_TEST_HIDE_SYSTEM)',
    )
    expect(findSystem('chromium', {PATH: some, KB_TEST_HIDE_SYSTEM: 'tmux'}).path).toBe(join(some, 'chromium'))
    expect(findSystem('chromium', {PATH: some, KB_TEST_HIDE_SYSTEM: 'all'}).path).toBeNull()
  })
})

describe('requireSystem', () => {
  it('skips with the reason printed, or throws under KB_TEST_REQUIRE_ALL=1', () => {
    vi.stubEnv('KB_TEST_HIDE_SYSTEM', 'tmux')
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined)
    try {
      vi.stubEnv('KB_TEST_REQUIRE_ALL', '')
      expect(requireSystem('tmux').available).toBe(false)
      expect(warn).toHaveBeenCalledWith('skipped: tmux not installed (hidden by KB_TEST_HIDE_SYSTEM) — `.ci/run` installs it')
      vi.stubEnv('KB_TEST_REQUIRE_ALL', '1')
      expect(() => requireSystem('tmux')).toThrow(/KB_TEST_REQUIRE_ALL=1 but tmux not installed/)
    } finally {
      warn.mockRestore()
      vi.unstubAllEnvs()
    }
  })
})
