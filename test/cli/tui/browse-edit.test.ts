/**
 * The edit key of `kb browse` in a real terminal (tmux), with the built binary and a child daemon (docs/tui.md,
 * "Edit"): `e` hands the screen to $EDITOR — a script that, like a teammate, changes the entry as it edits — and
 * takes it back redrawn; what is saved is merged with a comment and a tag made meanwhile; the same field changed on
 * both sides sends nothing and keeps the draft, and `e` again edits on the newest version from that text.
 */
import {existsSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, expect, it} from 'vitest'
import {KEY_LINES} from '../../../src/cli/tui/keymap.js'
import {KB_BIN, startChildDaemon, type ChildDaemon} from '../../helpers/daemon.js'
import {requireSystem} from '../../helpers/system.js'
import {cleanup, makeUser, type KbEnv} from '../helpers.js'
import {browseCommand, exitsIn, Tmux, until} from './tmux.js'

const system = requireSystem('tmux')

let d: ChildDaemon
let user: KbEnv
let tmux: Tmux

beforeAll(async () => {
  user = makeUser()
  d = await startChildDaemon({dataDir: user.dataDir})
  tmux = new Tmux(user.root, {...user.env, KB_BASE_URL: d.url, KB_API_KEY: d.ownerKey, KB_NO_AUTOSTART: '1', TERM: 'xterm-256color'})
  if (system.available) await tmux.start()
})

afterAll(async () => {
  if (system.available) await tmux?.stop()
  await d?.stop()
  if (user) await cleanup(user)
})

async function entry(title: string): Promise<Record<string, any>> {
  return (await d.request('POST', '/knowledge', {body: {title, body: 'First line.\nSecond line.', scope: 'global', tags: ['tui']}})).body
}

const full = async (id: string): Promise<Record<string, any>> =>
  (await d.request('GET', `/knowledge/${id}`, {query: {detail: 'full'}})).body

/** An $EDITOR running `rounds[n]` on its n-th call; "$1" is the file, `kb` the built binary; each file it saw is kept. */
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

const draft = (id: string): string => join(user.dataDir, 'drafts', `EDIT_${id}.md`)

system.describe('the edit key', () => {
  it('e edits in $EDITOR and merges with a comment and a tag made meanwhile; the screen comes back whole', async () => {
    const e = await entry('Cache warms slowly')
    const ed = editor('merge', [
      `sed -i -e 's/^title: .*/title: Cache warms slowly after deploy/' -e 's/^Second line./Second line, edited./' "$1" && kb comment ${e.id} 'seen it' >/dev/null && kb edit ${e.id} --add-tag perf >/dev/null`,
    ])
    const exits = join(user.root, 'merge.exits')
    const p = await tmux.pane('merge', browseCommand(['Cache warms'], exits, {EDITOR: ed}))
    await p.waitFor(/^› Cache warms slowly/m)
    await p.keys('e')
    const back = await p.waitFor('Saved "Cache warms slowly after deploy" (version 3, merged with changes made meanwhile)', 30_000)
    // Redrawn whole after the editor: the key line and the row, with the new title.
    expect(back).toContain(KEY_LINES.list)
    await p.waitFor(/^› Cache warms slowly after deploy/m)
    expect(await full(e.id)).toMatchObject({
      title: 'Cache warms slowly after deploy',
      body: 'First line.\nSecond line, edited.',
      tags: ['tui', 'perf'],
      version: 3,
      comment_count: 1,
    })
    expect(existsSync(draft(e.id))).toBe(false)
    await p.keys('q')
    await until(
      () => exitsIn(exits),
      (x) => x.length === 1,
      'kb browse should exit after q',
    )
    expect(exitsIn(exits)).toEqual(['0'])
  })

  it('a true conflict sends nothing and keeps the draft; e again edits on the newest version from that text', async () => {
    const e = await entry('Login loops forever')
    const ed = editor('clash', [
      `sed -i 's/^Second line./Second line, mine./' "$1" && kb edit ${e.id} --body 'First line.
Second line, theirs.' >/dev/null`,
      `sed -i 's/^Second line, mine./Second line, mine and theirs./' "$1"`,
    ])
    const p = await tmux.pane('clash', browseCommand(['Login loops'], join(user.root, 'clash.exits'), {EDITOR: ed}), {
      columns: 200,
      rows: 30,
    })
    await p.waitFor(/^› Login loops forever/m)
    await p.keys('e')
    await p.waitFor(`Not saved: body changed meanwhile (now version 2); your text is in ${draft(e.id)}`, 30_000)
    expect(readFileSync(draft(e.id), 'utf8')).toContain('Second line, mine.')
    expect(await full(e.id)).toMatchObject({body: 'First line.\nSecond line, theirs.', version: 2})
    await p.keys('e')
    await p.waitFor('Saved "Login loops forever" (version 3)', 30_000)
    const reopened = readFileSync(`${ed}.seen.1`, 'utf8')
    expect(reopened).toContain('# Merged onto version 2: body changed there too')
    expect(reopened).toContain('Second line, mine.')
    expect(await full(e.id)).toMatchObject({body: 'First line.\nSecond line, mine and theirs.', version: 3})
    expect(existsSync(draft(e.id))).toBe(false)
    await p.keys('q')
  })
})
