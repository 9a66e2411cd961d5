/**
 * `kb agent install claude-code --recall`, then a prompt: the hook lands in .claude/settings.json beside the
 * person's own hooks (byte for byte, and the file comes back as it was on uninstall), a second install changes
 * nothing, other tools are refused, and the installed command — run through a shell as Claude Code runs it, with
 * the hook JSON Claude Code sends — gives the agent kb's entry and leaves a record in `kb agent log`, which then
 * shows the entry verified after it (docs/agents.md, "Recall on every prompt", "The recall record").
 */
import {spawnSync} from 'node:child_process'
import {existsSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {KB_BIN, type ChildDaemon} from '../helpers/daemon.js'
import {cleanup, gitRepo, kb, type KbEnv, userWithDaemon} from './helpers.js'

let user: KbEnv
let d: ChildDaemon
let n = 0
let entryId: string
const repo = (): string => gitRepo(user, `r${++n}`, {origin: `git@github.com:acme/r${n}.git`})
const COMMAND = `${process.execPath} ${KB_BIN}`

beforeAll(async () => {
  ;({user, d} = await userWithDaemon({KB_RECALL_DEADLINE_MS: '20000'}))
  const res = await d.request('POST', '/knowledge', {
    body: {
      title: 'Flaky login test: the session cookie expires',
      body: 'The session cookie expires after 1 s under the fake clock; freeze the clock in the login test.',
      scope: 'global',
    },
  })
  expect(res.status).toBe(201)
  entryId = res.body.id as string
})

afterAll(async () => {
  await d?.stop()
  if (user) await cleanup(user)
})

describe('kb agent install claude-code --recall', () => {
  it("adds kb's UserPromptSubmit hook beside the person's hooks, idempotent, and uninstall gives the file back", async () => {
    const cwd = repo()
    const settings = join(cwd, '.claude', 'settings.json')
    mkdirSync(join(cwd, '.claude'))
    const original =
      '{\n  "permissions": {"allow": ["Bash(npm test)"]},\n  "hooks": {\n    "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "echo hi"}]}]\n  }\n}\n'
    writeFileSync(settings, original)
    const r = await kb(user, ['agent', 'install', 'claude-code', '--recall', '--command', COMMAND], {cwd})
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toContain(`updated\t${settings}`)
    const text = readFileSync(settings, 'utf8')
    expect(text.startsWith(original.slice(0, original.indexOf('}]}]') + 4))).toBe(true)
    const doc = JSON.parse(text) as {hooks: Record<string, Array<{hooks: Array<{command: string}>}>>}
    expect(doc.hooks.PreToolUse).toEqual([{matcher: 'Bash', hooks: [{type: 'command', command: 'echo hi'}]}])
    expect(doc.hooks.UserPromptSubmit).toEqual([{hooks: [{type: 'command', command: `${COMMAND} recall --hook claude-code`, timeout: 5}]}])
    const again = await kb(user, ['agent', 'install', 'claude-code', '--recall', '--command', COMMAND], {cwd})
    expect(again.stdout).toContain(`unchanged\t${settings}`)
    expect(readFileSync(settings, 'utf8')).toBe(text)
    const un = await kb(user, ['agent', 'uninstall', 'claude-code'], {cwd})
    expect(un.code, un.stderr).toBe(0)
    expect(readFileSync(settings, 'utf8')).toBe(original)
  })

  it('refuses --recall for a tool without a prompt hook that adds context', async () => {
    const r = await kb(user, ['agent', 'install', 'cursor', '--recall'], {cwd: repo()})
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('only claude-code')
  })

  it('two commands: the install, then a prompt — the hook as Claude Code runs it recalls the entry, and the record shows it', async () => {
    const cwd = repo()
    expect((await kb(user, ['agent', 'install', 'claude-code', '--recall', '--command', COMMAND], {cwd})).code).toBe(0)
    const hook = (
      JSON.parse(readFileSync(join(cwd, '.claude', 'settings.json'), 'utf8')) as {
        hooks: {UserPromptSubmit: Array<{hooks: Array<{command: string}>}>}
      }
    ).hooks.UserPromptSubmit[0]!.hooks[0]!.command
    const input = JSON.stringify({
      session_id: 'cc-7',
      transcript_path: '/tmp/t.jsonl',
      cwd,
      hook_event_name: 'UserPromptSubmit',
      prompt: 'the login test is flaky, the session cookie expires',
    })
    const r = spawnSync('/bin/sh', ['-c', hook], {cwd, input, env: user.env, encoding: 'utf8'})
    expect(r.status, r.stderr).toBe(0)
    const context = (JSON.parse(r.stdout) as {hookSpecificOutput: {additionalContext: string}}).hookSpecificOutput.additionalContext
    expect(context).toContain('Flaky login test: the session cookie expires (fresh; matched: ')
    const log = JSON.parse((await kb(user, ['agent', 'log', '--session', 'cc-7', '--json'])).stdout) as {items: Array<{client: string}>}
    expect(log.items).toHaveLength(1)
    expect(log.items[0]!.client).toBe('claude-code')
    expect(existsSync(join(cwd, '.mcp.json'))).toBe(true)
    // The fix worked: a verification after the recall shows in the record, as the agent's feedback would.
    expect((await kb(user, ['agent', 'log', '--session', 'cc-7'])).stdout).toMatch(/\tclaude-code\t1\t/)
    const verified = await kb(user, ['verify', entryId, '--note', 'froze the clock, the test passes'], {cwd})
    expect(verified.code, verified.stderr).toBe(0)
    expect((await kb(user, ['agent', 'log', '--session', 'cc-7'])).stdout).toMatch(/\tclaude-code\t1 \(1 verified\)\t/)
  })
})
