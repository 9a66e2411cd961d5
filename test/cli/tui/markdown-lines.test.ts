/**
 * The TUI's entry text as rendered Markdown (src/cli/tui/lines.ts over src/cli/render/): the detail pane
 * and the full view draw headings, code and links as styled segments within the width; the resolution
 * note, thoughts and comments are rendered too; a 100 KB body fills the pane without being laid out whole.
 */
import {describe, expect, it} from 'vitest'
import {fullLines, standardLines} from '../../../src/cli/tui/lines.js'
import {lineText} from '../../../src/cli/tui/styled.js'
import {width} from '../../../src/cli/tui/text.js'
import {entry, full} from './fixtures.js'

const ctx = {projects: {}, titleOf: (): undefined => undefined}
const BODY = '# Port in use\n\nSee [the docs](https://example.com/d) and run `kb daemon stop`.\n\n```sh\nlsof -i :7411\n```'

describe('rendered entry text in the TUI', () => {
  it('the detail pane: heading styled without #, inline code without backticks, code behind a gutter, links with their URL', () => {
    const lines = standardLines(entry('Port', {body: BODY}), 60, ctx)
    const text = lines.map(lineText)
    const heading = lines[text.indexOf('Port in use')]!
    expect(heading[0]).toMatchObject({bold: true})
    expect(text).toContain('See the docs (https://example.com/d) and run kb daemon stop.')
    expect(text).toContain('│ lsof -i :7411')
    expect(text.join('\n')).not.toContain('```')
    for (const l of text) expect(width(l)).toBeLessThanOrEqual(60)
  })

  it('the full view renders the resolution note, thoughts and comments, each within the width', () => {
    const e = full(entry('Port', {body: BODY}), {
      resolution: {
        resolved_at: '2026-11-20T11:00:00Z',
        resolved_by: {id: 'p1', name: 'owner'},
        note: 'Fixed by **stopping** it',
        url: null,
      },
      thought_chain: [{step: 1, kind: 'hypothesis', thought: 'A `stale` daemon'}],
      comments: [{id: 'c1', author: {id: 'p1', name: 'owner'}, type: 'note', body: '- one\n- two', created_at: '2026-11-20T11:00:00Z'}],
    } as never)
    const text = fullLines(e, 40, ctx).lines.map(lineText)
    expect(text.join('\n')).toMatch(/Resolution note\nFixed by stopping it/)
    expect(text).toContain('1. [hypothesis] A stale daemon')
    expect(text).toContain('• one')
    expect(text.some((l) => l.startsWith('resolution '))).toBe(false)
    for (const l of text) expect(width(l)).toBeLessThanOrEqual(40)
  })

  it('a 100 KB body fills the pane quickly, laying out only its start', () => {
    const big = entry('Big', {body: Array.from({length: 2000}, (_, i) => `Line ${i} with \`code\` and **bold** text`).join('\n')})
    const t = performance.now()
    const lines = standardLines(big, 80, ctx, Date.now(), 20)
    expect(performance.now() - t).toBeLessThan(200)
    expect(lines).toHaveLength(20)
    expect(lines.map(lineText)).toContain('Line 0 with code and bold text')
  })
})
