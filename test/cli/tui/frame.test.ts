/**
 * The frame without a terminal: every line fits the width in terminal columns (CJK, emoji, combining
 * marks) and the frame one line less than the height, at 120×35, 80×24 and 60×20; the key line and help
 * fit 80×24 and together show every key; empty states name the filters; prompts name the entry fully;
 * text from entries is made safe as it arrives.
 */
import {describe, expect, it} from 'vitest'
import {frame} from '../../../src/cli/tui/frame.js'
import {helpSections, KEY_LINES} from '../../../src/cli/tui/keymap.js'
import {cleanEntry} from '../../../src/cli/tui/load.js'
import {standardLines} from '../../../src/cli/tui/lines.js'
import {reduce} from '../../../src/cli/tui/reduce.js'
import type {State} from '../../../src/cli/tui/state.js'
import type {Finding} from '../../../src/shared/types.js'
import {lineText} from '../../../src/cli/tui/styled.js'
import {cut, fit, tail, width, wrap} from '../../../src/cli/tui/text.js'
import {answer, apply, browsing, entry, full, KEYS, page, press} from './fixtures.js'
import {shortId} from '../../../src/shared/short-id.js'

const NOW = Date.parse('2026-11-20T10:00:30Z')
const SIZES = [
  {columns: 120, rows: 35},
  {columns: 80, rows: 24},
  {columns: 60, rows: 20},
]

const wide = [
  entry('データベースがロックされています：二つのデーモンが同時に起動した', {tags: ['sqlite', '日本語']}),
  entry('Deploy broke 🚀🔥 again 👩‍👩‍👧 after the 🇯🇵 release', {body: '絵文字 😀 and 中文 text '.repeat(30)}),
  entry('Cafe\u0301 and nai\u0308ve: combining marks everywhere in the title', {body: 'e\u0301'.repeat(300)}),
  entry('Docker on Apple Silicon: exec format error (fork)', {forked_from: '0199aaaa-bbbb-7ccc-8ddd-ffffffffffff', scope: 'private'}),
]

function check(s: State, what: string): string[] {
  const lines = frame(s, NOW).map(lineText)
  expect(lines.length, what).toBeLessThanOrEqual(s.size.rows - 1)
  for (const l of lines) expect(width(l), `${what}: ${l}`).toBeLessThanOrEqual(s.size.columns)
  return lines
}

describe('text measured in columns', () => {
  it('cut, fit, tail and wrap count CJK and emoji as two columns and combining marks as none', () => {
    expect(width('日本語')).toBe(6)
    expect(width('👩‍👩‍👧')).toBe(2)
    expect(width('e\u0301')).toBe(1)
    expect(cut('日本語テキスト', 7)).toBe('日本語…')
    expect(width(fit('日本語テキスト', 8))).toBe(8)
    expect(cut('Cafe\u0301 au lait', 5)).toBe('Cafe\u0301…')
    expect(cut('🇯🇵🇯🇵🇯🇵', 4)).toBe('🇯🇵…')
    expect(tail('abc日本語', 5)).toBe('…本語')
    for (const l of wrap('中文'.repeat(50), 9)) expect(width(l)).toBeLessThanOrEqual(9)
    expect(wrap('中文'.repeat(50), 9).join('')).toBe('中文'.repeat(50))
  })

  for (const size of SIZES) {
    it(`every line fits ${size.columns}×${size.rows}: list, detail, full view, help, prompts`, () => {
      const s = browsing(wide, {size})
      check(s, 'list')
      for (let i = 0; i < wide.length; i++) check(press(s, ...Array.from({length: i}, () => 'j')).state, `row ${i}`)
      const opened = press(s, 'j', KEYS.enter).state
      const f = apply(opened, {
        type: 'entry',
        id: wide[1]!.id,
        entry: full(wide[1]!, {
          comments: [{id: 'c1', body: '評論 '.repeat(80), type: 'note', author: {id: 'p', name: '名前'}, created_at: wide[1]!.created_at}],
        }),
      }).state
      check(f, 'full')
      check(press(f, 'G').state, 'full, bottom')
      check(press(s, '?').state, 'help')
      check(press(s, '?', 'G').state, 'help, bottom')
      for (const k of ['r', 'c', 'f', 'p', 'd']) check(press(s, 'j', 'j', 'j', k).state, `prompt ${k}`)
      check(press(s, 'c', `\u001B[200~${'一行 '.repeat(20)}\n二行\n三行\u001B[201~`).state, 'comment paste')
      // The findings review of a publish (the private entry): wide excerpts, long diff lines, scrolled to its end.
      const asked = press(s, 'j', 'j', 'j', 'p', KEYS.enter)
      const call = asked.effects.find((e) => e.type === 'preview')
      const finding = (i: number): Finding => ({
        ...{id: `${i}`.padStart(16, '0'), field: `comments/${'c'.repeat(36)}/body`, kind: 'email', label: 'email address'},
        ...{category: 'personal', start: 0, end: 9, line: i + 1, column: 1, excerpt: `…連絡先 jane… ${'説明'.repeat(40)}…`},
      })
      const findings = Array.from({length: 12}, (_, i) => finding(i))
      const diff = findings.map((f) => ({
        field: f.field,
        line: f.line,
        before: `jane… ${'日本語'.repeat(60)}`,
        after: `[REDACTED:email] ${'日本語'.repeat(60)}`,
      }))
      const preview = {scope: 'global' as const, findings, findings_total: 12, diff, redacted: {}}
      if (call?.type !== 'preview') throw new Error('no preview asked')
      const reviewed = apply(asked.state, {type: 'previewed', call: call.call, preview}).state
      expect(reviewed.prompt?.kind).toBe('sensitive')
      check(reviewed, 'review')
      check(press(reviewed, 'G').state, 'review, bottom')
    })
  }

  it('the 60×20 full view keeps its lines off the id line (no smear)', () => {
    const s = browsing(wide, {size: {columns: 60, rows: 20}})
    const opened = apply(press(s, KEYS.enter).state, {type: 'entry', id: wide[0]!.id, entry: full(wide[0]!)}).state
    const lines = check(opened, 'full')
    expect(lines.find((l) => l.startsWith('id '))).toMatch(/^id +[0-9a-f]{7} {2}\(0199aaaa-bbbb-7ccc-8ddd-[0-9a-f]{12}\)$/)
  })
})

describe('80×24', () => {
  const s = browsing(wide, {size: {columns: 80, rows: 24}})

  it('every key line fits whole (no …) and names ? for the rest', () => {
    for (const [place, line] of Object.entries(KEY_LINES)) expect(width(line), place).toBeLessThan(80)
    expect(KEY_LINES.list).toContain('? more')
    expect(KEY_LINES.full).toContain('? more')
    const last = check(s, 'list').at(-1)!
    expect(last).toBe(KEY_LINES.list)
  })

  it('help scrolls through every binding of every place, each line whole', () => {
    let h = press(s, '?').state
    const seen = new Set<string>()
    for (let i = 0; i < 100; i++) {
      for (const l of check(h, 'help')) seen.add(l)
      h = press(h, 'j').state
    }
    const all = [...seen].join('\n')
    for (const sec of helpSections()) {
      expect(all).toContain(sec.title)
      for (const [keys, help] of sec.rows) {
        const line = `  ${keys.padEnd(14)}${help}`
        expect(width(line), line).toBeLessThan(80)
        expect(all, line).toContain(line)
      }
    }
  })
})

describe('what the screen says', () => {
  it('the empty state says when filters (or the project) hide entries', () => {
    const none = answer(browsing([]), page([])).state
    expect(frame(none, NOW).map(lineText).join('\n')).toContain('No entries yet')
    const filtered = answer(press(browsing([], {size: {columns: 80, rows: 24}}), 's', 't').state, page([])).state
    const text = frame(filtered, NOW).map(lineText).join(' ').replace(/\s+/g, ' ')
    expect(text).toContain('No entries with scope private · status open')
    expect(text).toContain('the filters may hide others')
    const inProject = answer(browsing([], {projectId: 'proj-1'}), page([])).state
    const named = apply(inProject, {
      type: 'projects',
      projects: [{id: 'proj-1', name: 'acme/api', remote: 'github.com/acme/api', created_at: '', role: 'member', verify_after_days: 0}],
    }).state
    expect(frame(named, NOW).map(lineText).join(' ')).toContain('No entries with project acme/api')
    const searched = answer(press(press(browsing([]), '/').state, 'zzz').state, page([])).state
    expect(frame(searched, NOW).map(lineText).join(' ')).toContain('No entries match "zzz".')
  })

  it('a fork is marked in the list, and its prompts name it fully: title, id, scope, fork of', () => {
    const original = entry('Docker on Apple Silicon: exec format error')
    const fork = entry('Docker on Apple Silicon: exec format error (fork)', {forked_from: original.id, scope: 'private'})
    const s = browsing([original, fork], {size: {columns: 80, rows: 24}})
    const rows = frame(s, NOW)
      .map(lineText)
      .filter((l) => l.includes('Docker'))
    expect(rows.some((l) => l.startsWith('  ↳ Docker'))).toBe(true)
    const del = frame(press(s, 'j', 'd').state, NOW)
      .map(lineText)
      .join(' ')
      .replace(/\s+/g, ' ')
    expect(del).toContain('Delete "Docker on Apple Silicon: exec format error (fork)"')
    expect(del).toContain(
      `id ${shortId(fork.id)} · private · open · by owner · fork of "Docker on Apple Silicon: exec format error" (${shortId(original.id)})`,
    )
    expect(del).toContain('Delete it? y/N')
    const delOriginal = frame(press(s, 'd').state, NOW).map(lineText).join('\n')
    expect(delOriginal).toContain(`id ${shortId(original.id)} · global`)
    expect(delOriginal).not.toContain('fork of')
  })

  it('the detail pane: "updated just now", the project with its remote, the entry it is a fork of', () => {
    const ctx = {
      projects: {
        p1: {id: 'p1', name: 'acme/api', remote: 'github.com/acme/api', created_at: '', role: 'member' as const, verify_after_days: 0},
      },
      titleOf: () => 'Parent title',
    }
    const e = entry('Fresh', {updated_at: '2026-11-20T10:00:00Z', project_id: 'p1', forked_from: '0199aaaa-0000-7000-8000-000000000001'})
    const lines = standardLines(e, 80, ctx, NOW).map(lineText)
    expect(lines[1]).toContain('updated just now')
    expect(lines.join('\n')).not.toContain('now ago')
    expect(lines).toContain('project acme/api · github.com/acme/api')
    expect(lines).toContain('fork of "Parent title" (0000001)')
    expect(lineText(standardLines(e, 80, ctx, NOW + 3 * 3600_000)[1]!)).toContain('updated 3h ago')
  })

  it('a comment pasted over several lines shows whole for review', () => {
    const s = press(
      browsing([entry('Target')], {size: {columns: 80, rows: 24}}),
      'c',
      '\u001B[200~first line\nsecond line\nthird line\u001B[201~',
    ).state
    const text = frame(s, NOW).map(lineText).join('\n')
    expect(text).toContain('3 lines — review, then Enter sends all of them')
    for (const l of ['│ first line', '│ second line', '│ third line']) expect(text).toContain(l)
  })

  it('a long error wraps under the status line with its fix instead of being cut', () => {
    const msg =
      'knowledge entry 0199aaaa-bbbb-7ccc-8ddd-000000000001 does not exist — it may have been deleted meanwhile; the list is refreshed'
    const s = {...browsing([entry('x')], {size: {columns: 80, rows: 24}}), line: {tone: 'error' as const, text: msg}}
    const text = check(s, 'status').join(' ')
    expect(text.replace(/\s+/g, ' ')).toContain(msg)
  })

  it('copy says "copied" only when a tool took the text, "sent" for OSC 52, and why it could not', () => {
    const s = browsing([entry('x')])
    const msg = (copy: {where: string | null; certain: boolean; error?: string}): string =>
      reduce(s, {type: 'copied', text: 'ID', copy}).state.line!.text
    expect(msg({where: "tmux's paste buffer", certain: true})).toBe("Copied ID to tmux's paste buffer")
    expect(msg({where: "the terminal's clipboard (OSC 52)", certain: false})).toContain(
      "Sent ID to the terminal's clipboard (OSC 52); a terminal without OSC 52 support ignores it",
    )
    expect(msg({where: null, certain: false, error: 'broken pipe'})).toBe('Could not copy ID: broken pipe')
  })
})

describe('safe text', () => {
  const hostile = {
    title: 'Evil \u001B]52;c;aGVsbG8=\u0007title \u001B]8;;https://evil.example\u001B\\link\u001B]8;;\u001B\\ \u001B[2J\u001B[31mred',
    body: 'clear \u001B[2J\u001B[3J screen\nset clipboard \u001B]52;c;ZXZpbA==\u001B\\ done\r\nbell \u0007 ok',
  }

  it('entries are cleaned as they arrive: no escape sequence, no control character reaches a frame', () => {
    const e = cleanEntry(
      full(entry(hostile.title, {body: hostile.body, tags: ['t'], author: {id: 'x', name: 'mal\u001B[2Jlory'}}), {
        comments: [
          {
            id: 'c',
            body: 'comment \u001B]52;c;eA==\u0007',
            type: 'note',
            author: {id: 'x', name: 'n\u009B2J'},
            created_at: '2026-11-20T10:00:00Z',
          },
        ],
        thought_chain: [{step: 1, thought: 'think \u001B[2J', kind: 'observation'}],
        resolution: {
          note: 'note \u001B]8;;http://x\u0007',
          url: null,
          resolved_by: {id: 'x', name: 'r'},
          resolved_at: '2026-11-20T10:00:00Z',
        },
        branches: [
          {id: 'b', title: 'branch \u001B[2J', scope: 'private', author: {id: 'x', name: 'a'}, created_at: '2026-11-20T10:00:00Z'},
        ],
      }),
    )
    const s = browsing([e])
    const opened = apply(press(s, KEYS.enter).state, {type: 'entry', id: e.id, entry: e}).state
    for (const st of [s, opened, press(s, 'd').state, press(opened, 'G').state]) {
      const text = frame(st, NOW).map(lineText).join('\n')

      expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/)
    }
    expect(e.title).toBe('Evil title link red')
  })
})

describe('narrower than 80 columns', () => {
  it('the key line drops groups of keys, keeping "? more" and "q quit", before anything is cut', () => {
    const s = browsing([entry('x')], {size: {columns: 60, rows: 20}})
    const last = frame(s, NOW).map(lineText).at(-1)!
    expect(width(last)).toBeLessThan(60)
    expect(last).toMatch(/^↑↓ move {2}Enter open .*\? more {2}q quit$/)
    expect(last).not.toContain('…')
  })
})

describe('the header', () => {
  it('offers ? help only where ? opens it, not where it is a letter', () => {
    const s = browsing([entry('x')])
    const head = (st: State): string => lineText(frame(st, NOW)[0]!)
    expect(head(s)).toMatch(/\? help$/)
    expect(head(press(s, '/').state)).toMatch(/Esc back$/)
    expect(head(press(s, 'c').state)).toMatch(/Esc back$/)
    expect(head(press(s, 'd').state)).toMatch(/\? help$/)
  })
})
