/**
 * Start-up guard: nothing heavy (Ink, React, fastify, better-sqlite3, gpt-tokenizer, TypeBox, the
 * server, `kb agent`'s config editors jsonc-parser and smol-toml, the Markdown renderer with markdown-it and
 * speed-highlight, and not even undici, conf, simple-git, the keyring, lowdb, string-width, cli-progress or the
 * completion plugin) is loaded on the path of `kb --version`, `kb search` or `kb add` — the renderer only by
 * `kb show` on a terminal; lowdb only once something is queued in the outbox. A `node --import` preload records
 * every module the process resolves (ESM and CommonJS); positive controls prove the recorder does see such
 * modules when they do load.
 */
import {readFileSync, rmSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {KB_BIN, ROOT, type ChildDaemon} from '../helpers/daemon.js'
import {startDropProxy} from '../helpers/drop-proxy.js'
import {cleanup, gitRepo, kb, run, type KbEnv, userWithDaemon} from './helpers.js'

const RECORDER = join(import.meta.dirname, 'fixtures', 'record-modules.mjs')
const HEAVY =
  /\/node_modules\/(ink|react|jsonc-parser|smol-toml|react-reconciler|fastify|better-sqlite3|gpt-tokenizer|@sinclair\/typebox|undici|conf|simple-git|oauth4webapi|@modelcontextprotocol\/sdk|@napi-rs\/keyring[^/]*|lowdb|steno|markdown-it|@speed-highlight\/core)\/|\/dist\/server\/|\/dist\/src\/cli\/render\//

/** Ours to load only when needed (oclif's own, nested string-width@4 is not this one). */
const LAZY = new RegExp(`^${ROOT}/node_modules/(string-width|cli-progress|@oclif/plugin-autocomplete)/`)

let d: ChildDaemon
let user: KbEnv
let repo: string

beforeAll(async () => {
  ;({user, d} = await userWithDaemon())
  repo = gitRepo(user, 'api', {origin: 'git@github.com:acme/api.git'})
  expect((await kb(user, ['project', 'join'], {cwd: repo})).code).toBe(0)
})

afterAll(async () => {
  await d?.stop()
  if (user) await cleanup(user)
})

async function modulesOf(args: string[], nodeArgs: string[] = [KB_BIN], cwd = repo, env: Record<string, string> = {}): Promise<string[]> {
  const file = join(user.root, `modules-${Math.random().toString(36).slice(2)}.txt`)
  const r = await run(process.execPath, ['--import', RECORDER, ...nodeArgs, ...args], user, {cwd, env: {...env, KB_RECORD_MODULES: file}})
  if (!env.KB_BASE_URL) expect(r.stderr).toBe('')
  expect(r.code, r.stderr).toBe(0)
  const lines = readFileSync(file, 'utf8').trim().split('\n')
  rmSync(file)
  return [...new Set(lines.map((l) => l.slice(4)))]
}

describe('start-up guard', () => {
  it('kb --version loads neither oclif nor anything heavy', async () => {
    const mods = await modulesOf(['--version'])
    expect(mods.filter((m) => HEAVY.test(m))).toEqual([])
    expect(mods.filter((m) => m.includes('@oclif'))).toEqual([])
  })

  it('kb search and kb add (in a joined checkout) load nothing heavy; kb search loads no oclif module', async () => {
    const search = await modulesOf(['search', 'port'])
    expect(search.filter((m) => HEAVY.test(m) || LAZY.test(m))).toEqual([])
    // The lean path of bin/run.js (src/cli/lean-search.ts): the command's search without oclif.
    expect(search.some((m) => m.endsWith('/dist/bundle/src/cli/lean-search.js'))).toBe(true)
    expect(search.filter((m) => m.includes('@oclif') || m.endsWith('/dist/commands/search.js'))).toEqual([])
    // node:crypto costs 5–15 ms: the daemon's proof is checked without it (src/cli/daemon/hmac-sha256.ts).
    expect(search).not.toContain('node:crypto')
    const add = await modulesOf(['add', 'Guarded', '--body', 'nothing heavy'])
    expect(add.filter((m) => HEAVY.test(m) || LAZY.test(m))).toEqual([])
    expect(add.some((m) => m.endsWith('/dist/commands/add.js'))).toBe(true)
    // From the CLI bundle (scripts/bundle-cli.js), which the recorder names module by module: oclif's core is in it,
    // and a command that git hooks and agents run loads neither the help nor the completion plugin.
    expect(add.some((m) => m.endsWith('/dist/bundle/commands/add.js'))).toBe(true)
    expect(add.some((m) => m.includes('/node_modules/@oclif/core/lib/'))).toBe(true)
    expect(add.filter((m) => m.includes('/node_modules/@oclif/plugin-'))).toEqual([])
  })

  it('the recorder does see heavy modules when they load (positive controls)', async () => {
    const cjs = await modulesOf(["require('fastify')"], ['-e'], ROOT)
    expect(cjs.some((m) => HEAVY.test(m) && m.includes('/fastify/'))).toBe(true)
    const esm = await modulesOf(["await import('ink')"], ['--input-type=module', '-e'], ROOT)
    expect(esm.some((m) => HEAVY.test(m) && m.includes('/ink/'))).toBe(true)
    const builtin = await modulesOf(["await import('node:crypto')"], ['--input-type=module', '-e'], ROOT)
    expect(builtin).toContain('node:crypto')
    // …and through the kb binary: `kb config set` is the one path that loads conf.
    const set = await modulesOf(['config', 'set', 'default_detail', 'full'])
    expect(set.some((m) => HEAVY.test(m) && m.includes('/node_modules/conf/'))).toBe(true)
  })

  it('kb show loads the Markdown renderer only when it renders (a terminal), not piped', async () => {
    const id = (
      await d.request<{id: string}>('POST', '/knowledge', {
        body: {title: 'Rendered', body: '# Heading\n\n```ts\nlet a = 1\n```', scope: 'global'},
      })
    ).body.id
    const piped = await modulesOf(['show', id])
    expect(piped.filter((m) => /\/(markdown-it|@speed-highlight\/core)\/|\/dist\/src\/cli\/render\//.test(m))).toEqual([])
    // On a pseudo-terminal (script), recorded the same way: the renderer and both libraries load, from the start
    // of `kb show` (bin/run.js) — but not for --raw or --json, which print the Markdown as stored.
    const onTty = async (...flags: string[]): Promise<string> => {
      const file = join(user.root, `modules-tty-${Math.random().toString(36).slice(2)}.txt`)
      const cmd = [process.execPath, '--import', RECORDER, KB_BIN, 'show', id, '--no-pager', ...flags].map((a) => `'${a}'`).join(' ')
      const r = await run('script', ['-qefc', cmd, '/dev/null'], user, {cwd: repo, env: {KB_RECORD_MODULES: file}})
      expect(r.code, r.stdout).toBe(0)
      const mods = readFileSync(file, 'utf8')
      rmSync(file)
      return mods
    }
    const tty = await onTty()
    for (const part of ['/node_modules/markdown-it/', '/node_modules/@speed-highlight/core/', '/dist/src/cli/render/markdown.js'])
      expect(tty).toContain(part)
    for (const flag of ['--raw', '--json'])
      expect(await onTty(flag)).not.toMatch(/\/(markdown-it|@speed-highlight\/core)\/|\/dist\/src\/cli\/render\/markdown\.js/)
  })

  it('lowdb loads once the outbox holds something: for the write that queues, and behind the next command', async () => {
    const proxy = await startDropProxy(Number(new URL(d.url).port))
    try {
      // A key of its own: owner.key goes only to a daemon that proves itself at the address reached, which a relay is not.
      const key = (await d.request<{key: string}>('POST', '/api-keys', {body: {name: 'through the proxy'}})).body.key
      const env = {KB_BASE_URL: proxy.url, KB_NO_AUTOSTART: '1', KB_API_KEY: key}
      proxy.cutNextRequest('POST')
      const queued = await modulesOf(['add', 'Queued', '--body', 'cut off'], [KB_BIN], repo, env)
      expect(proxy.cut).toBe(1)
      expect(queued.some((m) => m.includes('/node_modules/lowdb/'))).toBe(true)
      // The next command that reaches the server sends the queue behind its own work, so it loads lowdb too…
      const behind = await modulesOf(['search', 'port'], [KB_BIN], repo, env)
      expect(behind.some((m) => m.includes('/node_modules/lowdb/'))).toBe(true)
      // …and the one after it, with nothing left, does not.
      const after = await modulesOf(['search', 'port'], [KB_BIN], repo, env)
      expect(after.filter((m) => HEAVY.test(m))).toEqual([])
    } finally {
      await proxy.close()
    }
  })
})
