/**
 * @module Test helpers: a real kb daemon on an ephemeral loopback port, in-process or as a child
 * process of the built `kb` binary, and a small HTTP client for talking to it. The daemon runs on SQLite in
 * its data directory, or on a fresh PostgreSQL database: given as `storeUrl`, or for every daemon of a run
 * with KB_TEST_STORE=postgres (the `postgres` vitest project, which runs the API tests on both drivers).
 */
import {spawn, type ChildProcess} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync, existsSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'
import type {FastLane} from '../../server/http/fast-get.js'
import {sharedDatabase, testStoreIsPostgres} from './postgres.js'

export const ROOT = resolve(import.meta.dirname, '../..')
export const KB_BIN = join(ROOT, 'bin/run.js')

export interface HttpResult<T = any> {
  status: number
  headers: Headers
  body: T
  text: string
}

export interface RequestOptions {
  key?: string | null
  body?: unknown
  /** Raw body text, sent as is (with `contentType`). */
  raw?: string | Buffer
  contentType?: string | null
  headers?: Record<string, string>
  query?: Record<string, string | number | boolean | undefined>
}

export interface TestDaemon {
  /** Base URL ending in /api/v1. */
  url: string
  dataDir: string
  /** The PostgreSQL database it runs on; undefined for SQLite in `dataDir`. */
  storeUrl?: string
  ownerKey: string
  request<T = any>(method: string, path: string, options?: RequestOptions): Promise<HttpResult<T>>
  stop(): Promise<void>
}

export function tempDir(prefix = 'kb-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix))
}

function makeRequest(url: string, defaultKey: string): TestDaemon['request'] {
  return async (method, path, options = {}) => {
    const u = new URL(url + path)
    for (const [k, v] of Object.entries(options.query ?? {})) if (v !== undefined) u.searchParams.set(k, String(v))
    const headers: Record<string, string> = {...options.headers}
    const key = options.key === undefined ? defaultKey : options.key
    if (key !== null) headers.authorization = `Bearer ${key}`
    let body: string | Buffer | undefined
    if (options.raw !== undefined) body = options.raw
    else if (options.body !== undefined) body = JSON.stringify(options.body)
    if (body !== undefined && options.contentType !== null) headers['content-type'] = options.contentType ?? 'application/json'
    const res = await fetch(u, {method, headers, ...(body !== undefined ? {body} : {})})
    const text = await res.text()
    let parsed: unknown = text
    if ((res.headers.get('content-type') ?? '').includes('json') && text !== '') parsed = JSON.parse(text)
    return {status: res.status, headers: res.headers, body: parsed as any, text}
  }
}

/** The store URL a test daemon runs on: the one given, a fresh database under KB_TEST_STORE=postgres, else none (SQLite). */
async function storeUrlFor(given: string | undefined): Promise<string | undefined> {
  if (given !== undefined) return given
  return testStoreIsPostgres() ? sharedDatabase() : undefined
}

/** Starts the daemon in this process (real HTTP on 127.0.0.1, port 0); its fast lane of GET /knowledge/:id can be switched off. */
export async function startInProcessDaemon(
  options: {
    dataDir?: string
    /** pino level; default silent */ logLevel?: string
    storeUrl?: string
    openProjects?: boolean
    /** false: `--no-web` */ web?: boolean
    publicBaseUrl?: string
  } = {},
): Promise<TestDaemon & {fastLane: FastLane}> {
  const {startDaemon} = await import('../../server/daemon.js')
  const dataDir = options.dataDir ?? tempDir()
  const storeUrl = await storeUrlFor(options.storeUrl)
  const logLevel = options.logLevel ?? 'silent'
  const daemon = await startDaemon({
    dataDir,
    host: '127.0.0.1',
    port: 0,
    version: 'test',
    logLevel,
    ...(storeUrl ? {storeUrl} : {}),
    ...(options.openProjects ? {openProjects: true} : {}),
    ...(options.web === false ? {web: false} : {}),
    ...(options.publicBaseUrl ? {publicBaseUrl: options.publicBaseUrl} : {}),
  })
  const ownerKey = readFileSync(join(dataDir, 'owner.key'), 'utf8').trim()
  return {
    url: daemon.url,
    dataDir,
    ...(storeUrl ? {storeUrl} : {}),
    ownerKey,
    request: makeRequest(daemon.url, ownerKey),
    fastLane: daemon.fastLane,
    stop: async () => {
      await daemon.stop()
      if (!options.dataDir) rmSync(dataDir, {recursive: true, force: true})
    },
  }
}

export interface ChildDaemon extends TestDaemon {
  child: ChildProcess
  stderr: () => string
  /** Resolves with the exit code once the process has exited. */
  exited: Promise<number | null>
}

/** Starts `kb daemon run` as a child process (the built binary), waiting until it listens. */
export async function startChildDaemon(
  options: {
    dataDir?: string
    env?: Record<string, string>
    args?: string[]
    /** default 0: any free one */ port?: number
    storeUrl?: string
    /** A command the daemon's command line is given to (it ends by running it, e.g. `unshare … sh -c '…; exec "$@"'`). */
    wrap?: string[]
  } = {},
): Promise<ChildDaemon> {
  const dataDir = options.dataDir ?? tempDir()
  const storeUrl = await storeUrlFor(options.storeUrl)
  const wrap = options.wrap ?? []
  const command = [
    ...wrap,
    process.execPath,
    KB_BIN,
    'daemon',
    'run',
    '--port',
    String(options.port ?? 0),
    '--data-dir',
    dataDir,
    '--log-level',
    'info',
    ...(options.args ?? []),
  ]
  const child = spawn(command[0]!, command.slice(1), {
    env: {...process.env, ...(storeUrl ? {KB_STORE_URL: storeUrl} : {}), ...options.env},
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stderr = ''
  child.stderr!.on('data', (d: Buffer) => {
    stderr += d.toString()
  })
  child.stdout!.resume()
  const exited = new Promise<number | null>((res) => child.on('exit', (code) => res(code)))
  const url = await new Promise<string>((res, rej) => {
    const timer = setTimeout(() => rej(new Error(`daemon did not start in 60 s:\n${stderr}`)), 60_000)
    const check = (): void => {
      const m = /"msg":"kb daemon listening"/.test(stderr)
        ? /"url":"([^"]+)"/.exec(stderr.split('\n').find((l) => l.includes('kb daemon listening')) ?? '')
        : null
      if (m) {
        clearTimeout(timer)
        res(m[1]!)
      }
    }
    child.stderr!.on('data', check)
    void exited.then((code) => {
      clearTimeout(timer)
      rej(new Error(`daemon exited with ${code} before listening:\n${stderr}`))
    })
  })
  const ownerKeyPath = join(dataDir, 'owner.key')
  const ownerKey = existsSync(ownerKeyPath) ? readFileSync(ownerKeyPath, 'utf8').trim() : ''
  return {
    url,
    dataDir,
    ownerKey,
    child,
    exited,
    ...(storeUrl ? {storeUrl} : {}),
    stderr: () => stderr,
    request: makeRequest(url, ownerKey),
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
      await exited
    },
  }
}

/** Creates a principal with its own key (minted by the owner), optionally bound to a project. */
export async function newPrincipal(d: TestDaemon, name: string, projectId?: string): Promise<string> {
  const res = await d.request('POST', '/api-keys', {
    body: {principal: name, name: `${name} key`, ...(projectId ? {project_id: projectId} : {})},
  })
  if (res.status !== 201) throw new Error(`could not mint a key for ${name}: ${res.status} ${res.text}`)
  return res.body.key as string
}

/**
 * Runs one statement directly on a daemon's store, behind its back (`?` placeholders, numbered for PostgreSQL):
 * for tests that check what is stored, or age a row. Returns the rows (none for a statement without any).
 */
export async function queryStore<T = Record<string, unknown>>(d: TestDaemon, sql: string, params: unknown[] = []): Promise<T[]> {
  if (d.storeUrl) {
    const {default: pg} = await import('pg')
    // count(*) as a number, as SQLite gives it.
    const types = new pg.TypeOverrides()
    types.setTypeParser(pg.types.builtins.INT8, Number)
    const client = new pg.Client({connectionString: d.storeUrl, types})
    await client.connect()
    try {
      let n = 0
      return (
        await client.query(
          sql.replace(/\?/g, () => `$${++n}`),
          params,
        )
      ).rows as T[]
    } finally {
      await client.end()
    }
  }
  const {default: Database} = await import('better-sqlite3')
  const db = new Database(join(d.dataDir, 'kb.sqlite'))
  try {
    db.pragma('busy_timeout = 5000')
    const statement = db.prepare(sql)
    return statement.reader ? (statement.all(...params) as T[]) : (statement.run(...params), [])
  } finally {
    db.close()
  }
}

/**
 * Joins the project of `remote` with `key` as a team member does (docs/api.md, "Membership"): the join, and when it
 * waits for approval (202), its approval by `approver` (default: the owner). Returns the join's final answer body.
 */
export async function joinApproved(d: TestDaemon, remote: string, key: string, approver: string = d.ownerKey): Promise<any> {
  const first = await d.request('POST', '/projects/join', {key, body: {remote}})
  if (first.status === 200 || first.status === 201) return first.body
  if (first.status !== 202) throw new Error(`join failed: ${first.status} ${first.text}`)
  const {request, project} = first.body
  const approved = await d.request('POST', `/projects/${project.id}/requests/${request.id}/approve`, {key: approver})
  if (approved.status !== 200) throw new Error(`approval failed: ${approved.status} ${approved.text}`)
  const again = await d.request('POST', '/projects/join', {key, body: {remote}})
  if (again.status !== 200) throw new Error(`join after approval: ${again.status} ${again.text}`)
  return again.body
}

/** The string with its last character changed — never to itself (a fixed `x` leaves a key ending in x unchanged, 1 run in 62). */
export function alterLast(s: string): string {
  return `${s.slice(0, -1)}${s.endsWith('x') ? 'y' : 'x'}`
}
