/**
 * A foreground `kb daemon run` the CLI was not told about (its own --data-dir), with the built binary:
 * `kb list` names that directory's owner.key and KB_DATA_DIR, `kb daemon status` shows its real pid and
 * data directory, `kb daemon logs` says it logs to its stderr, `kb daemon stop` names the stop that works; `kb daemon run --json` and `--base-url`,
 * and the global flags a command does not take named as such (docs/cli.md, "Global flags").
 */
import {spawn} from 'node:child_process'
import {once} from 'node:events'
import {join} from 'node:path'
import {createInterface} from 'node:readline'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {KB_BIN, startChildDaemon, tempDir, type ChildDaemon} from '../../helpers/daemon.js'
import {cleanup, freePort, kb, kbTty, makeUser, type KbEnv} from '../helpers.js'

let d: ChildDaemon
let user: KbEnv
let otherDir: string

beforeAll(async () => {
  // NODE_ENV as a user has it: under vitest's 'test' oclif adds a developer warning to a failed parse.
  user = makeUser({NODE_ENV: 'production'})
  otherDir = tempDir('kb-elsewhere-')
  d = await startChildDaemon({dataDir: otherDir})
  user.env.KB_BASE_URL = d.url
})

afterAll(async () => {
  await d?.stop()
  if (user) await cleanup(user)
})

describe('a foreground daemon with a data directory the CLI does not know', () => {
  it('kb list names <data dir>/owner.key and KB_DATA_DIR', async () => {
    const r = await kb(user, ['list'])
    expect(r.code).toBe(4)
    expect(r.stderr).toBe(
      `kb: no credential: the kb daemon at ${d.url} keeps its data in ${otherDir}, not in ${user.dataDir} where kb looked for owner.key; ` +
        `set KB_DATA_DIR=${otherDir} (its key is ${join(otherDir, 'owner.key')}), or log in with \`kb auth login --with-token\`\n`,
    )
    const fixed = await kb(user, ['list'], {env: {KB_DATA_DIR: otherDir}})
    expect(fixed.code, fixed.stderr).toBe(0)
  })

  it('kb daemon status shows its pid and data directory; kb daemon logs says it logs to its stderr', async () => {
    const s = await kb(user, ['daemon', 'status', '--json'])
    expect(s.code, s.stderr).toBe(0)
    expect(JSON.parse(s.stdout)).toMatchObject({running: true, pid: d.child.pid, data_dir: otherDir, log: null})
    const l = await kb(user, ['daemon', 'logs'])
    expect(l.code).toBe(3)
    expect(l.stderr).toMatch(
      /^kb: the kb daemon at .* \(pid \d+, data .*\) runs in the foreground \(`kb daemon run`\) and logs to its own stderr/,
    )
  })

  it('kb daemon stop names it and the stop that works; that stop stops it', async () => {
    // A note for people: on a terminal only (stdout and stderr both reach the pseudo-terminal here).
    const r = await kbTty(user, ['daemon', 'stop'])
    expect(r.code, r.stdout).toBe(0)
    expect(r.stdout).toContain(`No kb daemon is running for ${user.dataDir}`)
    expect(r.stdout).toContain(
      `kb: the kb daemon at ${d.url} (pid ${d.child.pid}) keeps its data in ${otherDir}; stop it with \`KB_DATA_DIR=${otherDir} kb daemon stop\``,
    )
    expect(d.child.exitCode).toBe(null)
    const piped = await kb(user, ['daemon', 'stop'])
    expect(piped.stdout).toBe('not-running\n')
    expect(piped.stderr).toBe('')
    const fixed = await kb(user, ['daemon', 'stop'], {env: {KB_DATA_DIR: otherDir}})
    expect(fixed.code, fixed.stderr).toBe(0)
    expect(fixed.stdout).toBe(`stopped\t${d.child.pid}\n`)
    expect(await d.exited).toBe(0)
  })

  it('a daemon kb started records its log file, and kb daemon logs reads it', async () => {
    const own = makeUser()
    try {
      own.env.KB_BASE_URL = `http://127.0.0.1:${await freePort()}/api/v1`
      const start = await kb(own, ['daemon', 'start'])
      expect(start.code, start.stderr).toBe(0)
      const s = JSON.parse((await kb(own, ['daemon', 'status', '--json'])).stdout)
      expect(s).toMatchObject({running: true, data_dir: own.dataDir, log: join(own.dataDir, 'daemon.log')})
      const l = await kb(own, ['daemon', 'logs', '-n', '5'])
      expect(l.code, l.stderr).toBe(0)
      expect(l.stdout).toContain('kb daemon listening')
    } finally {
      await cleanup(own)
    }
  })
})

describe('kb daemon run and the global flags', () => {
  it('--json prints where it listens; --base-url picks host and port; a busy port is one kb: line (and JSON)', async () => {
    const port = await freePort()
    const dir = tempDir('kb-run-json-')
    const url = `http://127.0.0.1:${port}/api/v1`
    const run = spawn(process.execPath, [KB_BIN, 'daemon', 'run', '--base-url', url, '--data-dir', dir, '--json', '--log-level', 'warn'], {
      env: user.env,
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    try {
      const [line] = (await once(createInterface({input: run.stdout!}), 'line')) as [string]
      expect(JSON.parse(line)).toMatchObject({url, pid: run.pid, data_dir: dir, log: null})
      const busy = await kb(user, ['daemon', 'run', '--base-url', url, '--data-dir', tempDir('kb-run-busy-'), '--json'])
      expect(busy.code).toBe(1)
      expect(JSON.parse(busy.stdout)).toMatchObject({error: {code: 'error', exit: 1, message: expect.stringContaining(`port ${port}`)}})
      expect(busy.stderr.split('\n').filter((l) => l.startsWith('kb: '))).toHaveLength(1)
    } finally {
      run.kill('SIGTERM')
      await once(run, 'exit')
    }
  })

  it('names the global flags a command does not take, and why', async () => {
    const cases: [string[], RegExp][] = [
      [['browse', '--json'], /^kb: --json does not apply to kb browse: it is a terminal UI; in scripts use `kb search --json`/],
      [['mcp', '--json'], /^kb: --json does not apply to kb mcp: stdout carries the MCP protocol/],
      [['daemon', 'run', '--project', 'x'], /^kb: --project does not apply to kb daemon run: the daemon serves every project/],
      [
        ['daemon', 'run', '--base-url', 'http://127.0.0.1:1/api/v1', '--port', '5'],
        /^kb: --port=5 cannot also be provided when using --base-url/,
      ],
      [
        ['daemon', 'run', '--base-url', 'https://kb.example.com/'],
        /^kb: --base-url "https:\/\/kb\.example\.com\/": the daemon serves plain http at \/api\/v1/,
      ],
    ]
    for (const [args, want] of cases) {
      const r = await kb(user, args)
      expect(r.code, args.join(' ')).toBe(2)
      expect(r.stderr, args.join(' ')).toMatch(want)
      expect(r.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1)
    }
  })
})
