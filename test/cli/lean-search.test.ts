/**
 * The lean `kb search` (src/cli/lean-search.ts) against oclif's: for each invocation, the real `kb` binary and kb run
 * through oclif (fixtures/oclif-run.mjs) give byte-identical stdout, stderr and exit code; the module recorder shows
 * which path `kb` took — no oclif module on the lean path, oclif's for everything it leaves to the command.
 */
import {spawn} from 'node:child_process'
import {readFileSync, rmSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {KB_BIN, type ChildDaemon} from '../helpers/daemon.js'
import {cleanup, freePort, kb, makeUser, run, type KbEnv, type RunResult, userWithDaemon} from './helpers.js'

const RECORDER = join(import.meta.dirname, 'fixtures', 'record-modules.mjs')
const OCLIF = join(import.meta.dirname, 'fixtures', 'oclif-run.mjs')

let d: ChildDaemon
let user: KbEnv

beforeAll(async () => {
  ;({user, d} = await userWithDaemon())
  for (const [title, tag] of [
    ['port already in use', 'net'],
    ['port 8080 taken by a stale daemon', 'daemon'],
    ['sqlite database is locked', 'db'],
  ] as const)
    expect((await kb(user, ['add', title, '--body', `notes on the ${title}`, '--tag', tag, '--scope', 'global'])).code).toBe(0)
}, 120_000)

afterAll(async () => {
  await d?.stop()
  if (user) await cleanup(user)
})

/** `kb <args>` through bin/run.js, with whether it loaded oclif. */
async function viaBin(args: string[], env: Record<string, string>): Promise<RunResult & {oclif: boolean}> {
  const file = join(user.root, `modules-${Math.random().toString(36).slice(2)}.txt`)
  const r = await run(process.execPath, ['--import', RECORDER, KB_BIN, ...args], user, {env: {...env, KB_RECORD_MODULES: file}})
  const modules = readFileSync(file, 'utf8')
  rmSync(file)
  return {...r, oclif: modules.includes('@oclif')}
}

/** oclif warns of a command that ended before parsing (outside production) with the process id: not part of the answer. */
const pidless = (text: string): string => text.replace(/^\(node:\d+\) /gm, '(node:PID) ')

/** Both paths give the same bytes and exit code; returns whether `kb` loaded oclif. */
async function same(args: string[], env: Record<string, string> = {}): Promise<{oclif: boolean; r: RunResult}> {
  const [bin, oclif] = await Promise.all([viaBin(['search', ...args], env), run(process.execPath, [OCLIF, 'search', ...args], user, {env})])
  expect({stdout: bin.stdout, stderr: pidless(bin.stderr), code: bin.code}, args.join(' ')).toEqual({
    stdout: oclif.stdout,
    stderr: pidless(oclif.stderr),
    code: oclif.code,
  })
  return {oclif: bin.oclif, r: bin}
}

describe('kb search: the lean path and oclif agree', () => {
  const lean: string[][] = [
    ['port'],
    ['port', '--json'],
    ['port', 'daemon'],
    ['--scope', 'global', 'port'],
    ['port', '--status', 'open'],
    ['port', '--tag', 'net'],
    ['port', '--limit', '1'],
    ['port', '-L', '1', '--json'],
    ['port', '--detail', 'full'],
    ['port', '--fresh'],
    ['port', '--stale'],
    ['port', '--include-superseded'],
    ['port', '--max-tokens', '40'],
    ['port', '--max-tokens', '40', '--json'],
    ['nothing-matches-this-zzz'],
    [''],
    ['port', '--project', 'github.com/acme/none'],
    ['port', '--project', 'github.com/acme/none', '--json'],
  ]
  for (const args of lean)
    it(`lean: kb search ${JSON.stringify(args)}`, async () => {
      const {oclif, r} = await same(args)
      expect(oclif, r.stderr).toBe(false)
    })

  it('lean: --base-url, and the rows are the search hits', async () => {
    const {oclif, r} = await same(['port', '--base-url', d.url, '--json'])
    expect(oclif).toBe(false)
    expect(r.code).toBe(0)
    expect((JSON.parse(r.stdout) as {items: {title: string}[]}).items.map((i) => i.title).sort()).toEqual([
      'port 8080 taken by a stale daemon',
      'port already in use',
    ])
  })

  it('lean: no daemon at the base URL (autostart off), with and without --json', async () => {
    const env = {KB_BASE_URL: `http://127.0.0.1:${await freePort()}/api/v1`, KB_NO_AUTOSTART: '1'}
    for (const args of [['port'], ['port', '--json']]) {
      const {oclif, r} = await same(args, env)
      expect(oclif).toBe(false)
      expect(r.code).not.toBe(0)
      expect(r.stderr).toMatch(/^kb: .*not reachable/)
    }
  })

  it('lean: a key the server refuses, and no credential where the daemon keeps its data elsewhere', async () => {
    const envs: Record<string, string>[] = [{KB_API_KEY: 'kb_not_a_key_of_this_server'}, {KB_DATA_DIR: join(user.root, 'elsewhere')}]
    for (const env of envs) {
      const {oclif, r} = await same(['port'], env)
      expect(oclif).toBe(false)
      expect(r.code).not.toBe(0)
      expect(r.stderr).toMatch(/^kb: /)
    }
  })

  it('lean: a pipe closed before the output is written ends as oclif ends', async () => {
    const closed = (cmd: string[]): Promise<{code: number | null; stderr: string}> =>
      new Promise((resolve, reject) => {
        const child = spawn(process.execPath, cmd, {env: user.env, cwd: user.home, stdio: ['ignore', 'pipe', 'pipe']})
        child.stdout.destroy()
        let stderr = ''
        child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
        child.on('error', reject)
        child.on('close', (code) => resolve({code, stderr}))
      })
    const [lean, oclif] = await Promise.all([closed([KB_BIN, 'search', 'port']), closed([OCLIF, 'search', 'port'])])
    expect(lean).toEqual(oclif)
    expect(lean).toEqual({code: 0, stderr: ''})
  })

  const fallback: Array<[string[], Record<string, string>?]> = [
    [['port', '--limit', '0']],
    [['port', '--limit', 'many']],
    [['port', '--limit', '101']],
    [['port', '--limit=2']],
    [['port', '--scope', 'bogus']],
    [['port', '--bogus']],
    [['port', '--fresh', '--stale']],
    [['port', '--tag', 'a', '--tag', 'b']],
    [['port', '--tag']],
    [['port', '--', '--json']],
    [[]],
    [['port', '--help']],
    [['--help']],
    [['port', '-h']],
    [['port'], {KB_CONTENT_TYPE: 'json'}],
  ]
  for (const [args, env] of fallback)
    it(`falls back to oclif: kb search ${JSON.stringify(args)} ${env ? JSON.stringify(env) : ''}`, async () => {
      const {oclif} = await same(args, env)
      expect(oclif).toBe(true)
    })

  it('on a terminal: lean with a daemon up (same bytes as oclif on the pseudo-terminal); a daemon to start is left to the command', async () => {
    // Both through a real pseudo-terminal (util-linux `script`): stdout and stderr are terminals.
    const tty = async (argv: string[], env: Record<string, string> = {}): Promise<RunResult> => {
      const cmd = `stty cols 120 rows 40 2>/dev/null; ${argv.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ')}`
      const r = await run('script', ['-qefc', cmd, '/dev/null'], user, {env})
      return {...r, stdout: r.stdout.replace(/\r\n/g, '\n')}
    }
    const file = join(user.root, 'modules-tty.txt')
    const [lean, oclif] = await Promise.all([
      tty([process.execPath, '--import', RECORDER, KB_BIN, 'search', 'port'], {KB_RECORD_MODULES: file}),
      tty([process.execPath, OCLIF, 'search', 'port']),
    ])
    expect(readFileSync(file, 'utf8')).not.toContain('@oclif')
    rmSync(file)
    expect({stdout: lean.stdout, code: lean.code}).toEqual({stdout: oclif.stdout, code: oclif.code})
    expect(lean.stdout).toContain('port already in use')
    // No daemon at a loopback URL, autostart on: the command starts it, with its note; the lean path started nothing.
    const other = makeUser({KB_BASE_URL: `http://127.0.0.1:${await freePort()}/api/v1`})
    try {
      const started = await tty([process.execPath, '--import', RECORDER, KB_BIN, 'search', 'port'], {...other.env, KB_RECORD_MODULES: file})
      expect(readFileSync(file, 'utf8')).toContain('@oclif')
      expect(started.code, started.stdout).toBe(0)
      expect(started.stdout).toMatch(/started the kb daemon|starting the kb daemon/)
    } finally {
      await run(process.execPath, [KB_BIN, 'daemon', 'stop'], other)
      await cleanup(other)
    }
  })
})
