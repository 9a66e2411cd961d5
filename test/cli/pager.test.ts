/**
 * The pager: `$KB_PAGER`, then `$PAGER`, then `less -FRX`, split into words and run without a shell (a
 * shell only for shell syntax); used for `kb show` and `kb list` on a terminal when the text is longer than
 * the screen, never piped, never with --no-pager or --json; a pager that cannot start leaves kb printing.
 */
import {existsSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {pagerCommand, screenRows, splitCommand} from '../../src/cli/output/pager.js'
import type {ChildDaemon} from '../helpers/daemon.js'
import {cleanup, kb, kbTty, type KbEnv, userWithDaemon} from './helpers.js'

describe('the pager command', () => {
  it('is KB_PAGER, else PAGER, else less -FRX; empty or cat is none', () => {
    expect(pagerCommand({KB_PAGER: 'most', PAGER: 'more'})).toBe('most')
    expect(pagerCommand({PAGER: 'more'})).toBe('more')
    expect(pagerCommand({})).toBe('less -FRX')
    expect(pagerCommand({KB_PAGER: '', PAGER: 'more'})).toBeNull()
    expect(pagerCommand({PAGER: 'cat'})).toBeNull()
  })

  it.each([
    ['less -FRX', ['less', '-FRX']],
    ["less -R 'a b'", ['less', '-R', 'a b']],
    ['"/opt/my pager/bin/pg" -s', ['/opt/my pager/bin/pg', '-s']],
    ['my\\ pager  --x', ['my pager', '--x']],
    ['less "-P\\"x\\""', ['less', '-P"x"']],
  ])('splits %j into words', (cmd, words) => {
    expect(splitCommand(cmd)).toEqual(words)
  })

  it.each(['less | cat', 'LESS=R less', 'less > out', '$PAGER', 'less "$X"', 'pg `x`', "unterminated 'quote", 'less; rm x', 'less *'])(
    'leaves %j, which needs a shell, to sh -c',
    (cmd) => {
      expect(splitCommand(cmd)).toBeNull()
    },
  )

  it('counts the rows a text fills, long lines wrapping', () => {
    expect(screenRows('a\nb\n', 80)).toBe(2)
    expect(screenRows(`${'x'.repeat(81)}\n`, 80)).toBe(2)
    expect(screenRows('漢'.repeat(41), 80)).toBe(2)
  })
})

let d: ChildDaemon
let user: KbEnv
let longId: string
let shortId: string
/** A pager that records how it was run and what it read, and prints a marker. */
let recorder: string
let record: string

beforeAll(async () => {
  ;({user, d} = await userWithDaemon({TERM: 'xterm-256color'}))
  record = join(user.root, 'paged.json')
  recorder = join(user.root, 'pager.mjs')
  writeFileSync(
    recorder,
    `import {writeFileSync} from 'node:fs'
let text = ''
process.stdin.on('data', (c) => (text += c))
process.stdin.on('end', () => {
  writeFileSync(${JSON.stringify(record)}, JSON.stringify({argv: process.argv.slice(2), text, less: process.env.LESS}))
  process.stdout.write('PAGED\\n')
})
`,
  )
  const body = Array.from({length: 80}, (_, i) => `line ${i + 1} of a long body`).join('\n')
  longId = (await d.request('POST', '/knowledge', {body: {title: 'A long entry', body, scope: 'global'}})).body.id
  shortId = (await d.request('POST', '/knowledge', {body: {title: 'A short entry', body: 'one line', scope: 'global'}})).body.id
})

afterAll(async () => {
  await d?.stop()
  if (user) await cleanup(user)
})

function paged(): {argv: string[]; text: string; less: string} | null {
  if (!existsSync(record)) return null
  const r = JSON.parse(readFileSync(record, 'utf8')) as {argv: string[]; text: string; less: string}
  rmSync(record)
  return r
}

describe('kb show and kb list on a terminal', () => {
  it('page a text longer than the screen through KB_PAGER, run without a shell, with LESS=FRX', async () => {
    const r = await kbTty(user, ['show', longId], {env: {KB_PAGER: `${process.execPath} ${recorder} --from-kb`, PAGER: 'false'}, rows: 24})
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toContain('PAGED')
    expect(r.stdout).not.toContain('line 80 of a long body')
    const p = paged()!
    expect(p.argv).toEqual(['--from-kb'])
    expect(p.text).toContain('line 80 of a long body')
    expect(p.text).toContain('A long entry')
    expect(p.less).toBe('FRX')
  })

  it('use PAGER when KB_PAGER is unset, and a shell for a pager with shell syntax', async () => {
    const viaPager = await kbTty(user, ['show', longId], {env: {PAGER: `${process.execPath} ${recorder}`}, rows: 24})
    expect(viaPager.stdout).toContain('PAGED')
    expect(paged()!.argv).toEqual([])
    const out = join(user.root, 'shell-pager.txt')
    const viaShell = await kbTty(user, ['show', longId], {env: {KB_PAGER: `cat > ${out}`}, rows: 24})
    expect(viaShell.code, viaShell.stderr).toBe(0)
    expect(readFileSync(out, 'utf8')).toContain('line 80 of a long body')
    expect(viaShell.stdout).not.toContain('line 80')
  })

  it('kb list pages too, when its rows run past the screen', async () => {
    const r = await kbTty(user, ['list'], {env: {KB_PAGER: `${process.execPath} ${recorder}`}, rows: 3})
    expect(r.stdout).toContain('PAGED')
    expect(paged()!.text).toContain('A short entry')
  })

  it('print directly: a text that fits, --no-pager, --json, an empty KB_PAGER, or a pager that cannot start', async () => {
    const env = {KB_PAGER: `${process.execPath} ${recorder}`}
    for (const [args, extra] of [
      [['show', shortId], {}],
      [['show', longId, '--no-pager'], {}],
      [['show', longId, '--json'], {}],
      [['show', longId], {KB_PAGER: ''}],
      [['show', longId], {KB_PAGER: 'cat'}],
      [['show', longId], {KB_PAGER: '/nonexistent/pager'}],
    ] as const) {
      const r = await kbTty(user, [...args], {env: {...env, ...extra}, rows: 24})
      expect(r.code, `${args.join(' ')} ${JSON.stringify(extra)}: ${r.stderr}`).toBe(0)
      expect(r.stdout, args.join(' ')).not.toContain('PAGED')
      expect(paged(), args.join(' ')).toBeNull()
    }
  })
})

describe('piped', () => {
  it('never pages', async () => {
    const r = await kb(user, ['show', longId], {env: {KB_PAGER: `${process.execPath} ${recorder}`}})
    expect(r.stdout).toContain('line 80 of a long body')
    expect(r.stdout).not.toContain('PAGED')
    expect(paged()).toBeNull()
  })
})
