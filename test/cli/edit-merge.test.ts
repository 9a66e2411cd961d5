/**
 * `kb edit` meeting changes made while the editor was open (docs/cli.md, "Edits that meet other changes"), with the
 * built `kb` under a real pseudo-terminal and $EDITOR a script that, like a teammate, changes the entry as it edits:
 * a comment never conflicts; another field is merged; the same field is a true conflict that keeps the text in a
 * 0600 draft, shows the diff, and edits again on the newest version when asked.
 */
import {existsSync, readFileSync, statSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {KB_BIN, type ChildDaemon} from '../helpers/daemon.js'
import {cleanup, kbTty, type KbEnv, userWithDaemon} from './helpers.js'

let d: ChildDaemon
let user: KbEnv

beforeAll(async () => {
  ;({user, d} = await userWithDaemon({TERM: 'xterm'}))
})

afterAll(async () => {
  await d?.stop()
  if (user) await cleanup(user)
})

async function entry(title: string, tags: string[] = []): Promise<Record<string, any>> {
  return (await d.request('POST', '/knowledge', {body: {title, body: 'First line.\nSecond line.', scope: 'global', tags}})).body
}

async function full(id: string): Promise<Record<string, any>> {
  return (await d.request('GET', `/knowledge/${id}`, {query: {detail: 'full'}})).body
}

const draft = (id: string): string => join(user.dataDir, 'drafts', `EDIT_${id}.md`)

/**
 * An $EDITOR that runs `rounds[n]` on its n-th call (0-based): shell lines with "$1" the file being edited and
 * `kb` the built binary, for the teammate's concurrent change. Its log of calls is `<script>.n`.
 */
function editor(name: string, rounds: string[]): string {
  const file = join(user.root, `${name}.sh`)
  const kb = `'${process.execPath}' '${KB_BIN}'`
  const cases = rounds.map((r, i) => `  ${i}) ${r.replaceAll('kb ', `${kb} `)} ;;`).join('\n')
  writeFileSync(
    file,
    `#!/bin/sh\nn=$(cat "$0.n" 2>/dev/null || echo 0)\necho $((n + 1)) > "$0.n"\ncp "$1" "$0.seen.$n"\ncase $n in\n${cases}\nesac\n`,
    {mode: 0o755},
  )
  return file
}

describe('kb edit while others change the entry', () => {
  it('a comment made meanwhile conflicts with nothing; a tag and a resolution made meanwhile are merged in', async () => {
    const e = await entry('Cache warms slowly', ['cache'])
    const ed = editor('comment', [
      `sed -i -e 's/^title: .*/title: Cache warms slowly after deploy/' -e 's/^Second line./Second line, edited./' "$1" && kb comment ${e.id} 'a teammate comments' >/dev/null && kb edit ${e.id} --add-tag perf >/dev/null && kb resolve ${e.id} >/dev/null`,
    ])
    const r = await kbTty(user, ['edit', e.id], {env: {EDITOR: ed}})
    expect(r.code, r.stdout + r.stderr).toBe(0)
    expect(r.stdout).toContain('merged with changes made meanwhile (version 3)')
    const after = await full(e.id)
    expect(after).toMatchObject({
      title: 'Cache warms slowly after deploy',
      body: 'First line.\nSecond line, edited.',
      tags: ['cache', 'perf'],
      status: 'resolved',
      version: 4,
      comment_count: 1,
    })
    expect(after.comments[0].body).toBe('a teammate comments')
    // Sent: the draft is gone.
    expect(existsSync(draft(e.id))).toBe(false)
  }, 120_000)

  it('the same field changed on both sides: exit 5, the text kept in a 0600 draft, the diff shown, nothing overwritten', async () => {
    const e = await entry('Login loops', ['auth'])
    const ed = editor('clash', [
      `sed -i -e 's/^Second line./Second line, mine./' -e 's/^tags: .*/tags: auth, mine/' "$1" && kb edit ${e.id} --body 'First line.
Second line, theirs.' >/dev/null`,
    ])
    const r = await kbTty(user, ['edit', e.id], {env: {EDITOR: ed}, input: 'n\n'})
    expect(r.code, r.stdout + r.stderr).toBe(5)
    const out = r.stdout + r.stderr
    expect(out).toContain('body changed there too')
    expect(out).toContain(`your text is saved in ${draft(e.id)}`)
    expect(out).toContain('- Second line, theirs.')
    expect(out).toContain('+ Second line, mine.')
    expect(out).toContain('Edit again on version 2, starting from your text?')
    expect(statSync(draft(e.id)).mode & 0o777).toBe(0o600)
    const kept = readFileSync(draft(e.id), 'utf8')
    expect(kept).toContain('Second line, mine.')
    expect(kept).toContain('tags: auth, mine')
    expect(await full(e.id)).toMatchObject({body: 'First line.\nSecond line, theirs.', tags: ['auth'], version: 2})
  }, 120_000)

  it('asked to, edits again on the newest version starting from the text typed, and sends that', async () => {
    const e = await entry('Build cache misses')
    const ed = editor('again', [
      `sed -i 's/^Second line./Second line, mine./' "$1" && kb edit ${e.id} --body 'First line.
Second line, theirs.' --add-tag ci >/dev/null`,
      // The second time the editor opens, both versions are in view: keep a bit of each.
      `sed -i 's/^Second line, mine./Second line, mine and theirs./' "$1"`,
    ])
    const r = await kbTty(user, ['edit', e.id], {env: {EDITOR: ed}, input: 'y\n'})
    expect(r.code, r.stdout + r.stderr).toBe(0)
    const reopened = readFileSync(`${ed}.seen.1`, 'utf8')
    expect(reopened).toContain('# Merged onto version 2: body changed there too')
    expect(reopened).toContain('tags: ci')
    expect(reopened).toContain('Second line, mine.')
    expect(await full(e.id)).toMatchObject({body: 'First line.\nSecond line, mine and theirs.', tags: ['ci'], version: 3})
    expect(existsSync(draft(e.id))).toBe(false)
  }, 120_000)
})
