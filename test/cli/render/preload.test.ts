/**
 * The start of `kb show` (src/cli/render/preload.ts): the renderer starts loading only when the command will
 * render — colours on, and no flag that prints something else (JSON, the Markdown as stored, the web view, help).
 */
import {describe, expect, it} from 'vitest'
import {willRender} from '../../../src/cli/render/preload.js'

const COLOUR = {tty: true, color: true, width: 80}

describe('willRender', () => {
  it('renders on a terminal with colours, whatever the other flags', () => {
    expect(willRender(['0193a7e2'], COLOUR)).toBe(true)
    expect(willRender(['0193a7e2', '--detail', 'full', '--no-pager'], COLOUR)).toBe(true)
  })

  it('not without colours (piped, NO_COLOR, CI, TERM=dumb)', () => {
    expect(willRender(['0193a7e2'], {...COLOUR, color: false})).toBe(false)
    expect(willRender(['0193a7e2'], {tty: false, color: false, width: 80})).toBe(false)
  })

  it.each(['--json', '--raw', '--web', '--help', '-h'])('not with %s', (flag) => {
    expect(willRender(['0193a7e2', flag], COLOUR)).toBe(false)
    expect(willRender([flag, '0193a7e2'], COLOUR)).toBe(false)
  })
})
