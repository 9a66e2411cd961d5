/**
 * @module `kb recall --hook claude-code` with recorded hook inputs, and `kb recall` / `kb agent log` by hand: a relevant
 * prompt gives context in Claude Code's documented form within the budget; an irrelevant one prints nothing; a daemon
 * that is down or does not answer costs the prompt nothing but silence, fast; a secret is masked; the record lists
 * what was given (docs/agents.md, "Recall on every prompt").
 */
import {createServer, type Server, type Socket} from 'node:net'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {ChildDaemon} from '../helpers/daemon.js'
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {KB_BIN} from '../helpers/daemon.js'
import {ANSI_RE, cleanup, freePort, kb, kbTty, run, type KbEnv, userWithDaemon} from './helpers.js'
import {displayWidth} from '../../src/cli/output/format.js'

let d: ChildDaemon
let user: KbEnv
let poolId: string
const AWS_KEY = 'AKIAQ5XTYWBN7TGHMK2P'

/** What Claude Code sends a UserPromptSubmit hook on stdin (its hooks reference). */
function hookInput(prompt: string, cwd: string): string {
  return JSON.stringify({
    session_id: 'sess-42',
    transcript_path: '/tmp/transcript.jsonl',
    cwd,
    hook_event_name: 'UserPromptSubmit',
    prompt,
  })
}

beforeAll(async () => {
  // A loaded test machine may take the default 0.9 s to start node; the deadline itself has a test of its own.
  ;({user, d} = await userWithDaemon({KB_RECALL_DEADLINE_MS: '20000'}))
  const res = await d.request('POST', '/knowledge', {
    body: {
      title: 'Connection pool exhausted under load',
      body: 'The pg pool timed out acquiring a client: raise max in src/db/pool.ts to 50 and release clients in finally.',
      scope: 'global',
    },
  })
  poolId = res.body.id
  await d.request('POST', '/knowledge', {body: {title: 'Deploy credentials', body: `The deploy job reads the deploy key ${AWS_KEY}.`}})
})

afterAll(async () => {
  await d?.stop()
  if (user) await cleanup(user)
})

describe('kb recall --hook claude-code', () => {
  it('prints the relevant entry as additionalContext, with id, freshness and why, within the budget', async () => {
    const r = await kb(user, ['recall', '--hook', 'claude-code'], {
      input: hookInput('why does the pg pool time out acquiring a client?', user.home),
    })
    expect(r.code, r.stderr).toBe(0)
    const out = JSON.parse(r.stdout) as {hookSpecificOutput: {hookEventName: string; additionalContext: string}}
    expect(out.hookSpecificOutput.hookEventName).toBe('UserPromptSubmit')
    const context = out.hookSpecificOutput.additionalContext
    expect(context).toContain(`[${poolId}] Connection pool exhausted under load (fresh; matched: `)
    expect(context).toContain('verify_knowledge')
    expect(r.stderr).toBe('')
  })

  it('runs without oclif: a prompt waits for no more than the hook needs', async () => {
    const file = join(user.root, 'hook-modules.txt')
    const r = await run(
      process.execPath,
      ['--import', join(import.meta.dirname, 'fixtures', 'record-modules.mjs'), KB_BIN, 'recall', '--hook', 'claude-code'],
      user,
      {
        input: hookInput('why does the pg pool time out acquiring a client?', user.home),
        env: {KB_RECORD_MODULES: file},
      },
    )
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toContain(poolId)
    const mods = readFileSync(file, 'utf8')
    expect(mods).toContain('/dist/src/cli/recall/fast-hook.js')
    expect(mods).not.toContain('@oclif')
  })

  it('prints nothing for an irrelevant prompt, or input that is not the hook JSON', async () => {
    const r = await kb(user, ['recall', '--hook', 'claude-code'], {input: hookInput('What is the weather like today?', user.home)})
    expect(r.code).toBe(0)
    expect(r.stdout).toBe('')
    const junk = await kb(user, ['recall', '--hook', 'claude-code'], {input: 'not json'})
    expect(junk.code).toBe(0)
    expect(junk.stdout).toBe('')
  })

  it('masks a secret an entry holds', async () => {
    const r = await kb(user, ['recall', '--hook', 'claude-code'], {
      input: hookInput('which deploy key does the deploy job read?', user.home),
    })
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('Deploy credentials')
    expect(r.stdout).not.toContain(AWS_KEY)
    expect(r.stdout).toContain('[REDACTED:')
  })

  it('is silent and quick when no daemon answers, and starts none', async () => {
    const port = await freePort()
    const r = await kb(user, ['recall', '--hook', 'claude-code', '--base-url', `http://127.0.0.1:${port}/api/v1`], {
      input: hookInput('why does the pg pool time out?', user.home),
      env: {KB_RECALL_DEADLINE_MS: '900'},
    })
    expect(r.code).toBe(0)
    expect(r.stdout).toBe('')
    expect(r.stderr).toBe('')
    // Autostart would have started a daemon on that port: nothing listens there.
    expect((await kb(user, ['daemon', 'status', '--base-url', `http://127.0.0.1:${port}/api/v1`, '--json'])).code).not.toBe(0)
  })

  it('gives up within its deadline on a server that takes the connection and never answers', async () => {
    const sockets = new Set<Socket>()
    const silent: Server = createServer((s) => void sockets.add(s))
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
    const port = (silent.address() as {port: number}).port
    try {
      const r = await kb(user, ['recall', '--hook', 'claude-code', '--base-url', `http://127.0.0.1:${port}/api/v1`], {
        input: hookInput('why does the pg pool time out?', user.home),
        env: {KB_API_KEY: 'kb_' + 'a'.repeat(43), KB_RECALL_DEADLINE_MS: '900'},
      })
      expect(r.code).toBe(0)
      expect(r.stdout).toBe('')
      // The hook's own deadline is 0.9 s; node's start and a loaded machine take the rest.
      expect(r.ms).toBeLessThan(5000)
    } finally {
      for (const s of sockets) s.destroy()
      silent.close()
    }
  })
})

describe('kb recall and kb agent log', () => {
  it('prints the context by hand and lists every recall with what was given', async () => {
    const r = await kb(user, ['recall', 'pg pool timed out acquiring a client', '--session', 'by-hand'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toContain('Connection pool exhausted under load')
    const log = await kb(user, ['agent', 'log', '--json'])
    expect(log.code, log.stderr).toBe(0)
    const items = (JSON.parse(log.stdout) as {items: Array<{client: string; session: string | null; items: Array<{id: string}>}>}).items
    expect(items[0]).toMatchObject({client: 'kb-cli', session: 'by-hand'})
    expect(items[0]!.items.map((i) => i.id)).toContain(poolId)
    expect(items.some((i) => i.client === 'claude-code' && i.session === 'sess-42')).toBe(true)
    const bySession = JSON.parse((await kb(user, ['agent', 'log', '--session', 'by-hand', '--json'])).stdout) as {items: unknown[]}
    expect(bySession.items).toHaveLength(1)
    const piped = await kb(user, ['agent', 'log'])
    expect(piped.stdout.split('\n')[0]).toContain('kb-cli')
    // On an 80-column terminal every row fits, the query cut rather than wrapped.
    const long = `why does the pg pool time out acquiring a client ${'under heavy load '.repeat(8)}`
    expect((await kb(user, ['recall', long])).code).toBe(0)
    const tty = await kbTty(user, ['agent', 'log'], {cols: 80})
    const lines = tty.stdout
      .replace(new RegExp(ANSI_RE.source, 'g'), '')
      .split('\n')
      .filter((l) => l.trim() !== '')
    expect(lines[0]).toMatch(/^WHEN +BY +GIVEN +QUERY$/)
    expect(lines[1]).toMatch(/…$/)
    for (const l of lines) expect(displayWidth(l), l).toBeLessThanOrEqual(80)
  })

  it('takes its budget from recall.max_tokens and refuses one out of range', async () => {
    expect((await kb(user, ['config', 'set', 'recall.max_tokens', '20'])).code).toBe(2)
    const set = await kb(user, ['config', 'set', 'recall.max_tokens', '60'])
    expect(set.code, set.stderr).toBe(0)
    expect((await kb(user, ['config', 'get', 'recall.max_tokens'])).stdout.trim()).toBe('60')
    const r = await kb(user, ['recall', 'pg pool timed out acquiring a client', '--json'])
    expect((JSON.parse(r.stdout) as {tokens_used: number}).tokens_used).toBeLessThanOrEqual(60)
  })
})
