/**
 * @module The terminal-safety function: a table of the sequences a hostile entry could carry, what survives of
 * ordinary text, and linear time on 100,000 characters of each hostile shape.
 */
import {describe, expect, it} from 'vitest'
import {safeText} from '../../../src/cli/output/safe-text.js'

const ESC = '\u001b'
const BEL = '\u0007'

describe('safeText', () => {
  it.each([
    ['CSI colour', `a${ESC}[31mred${ESC}[0m`, 'ared'],
    ['CSI clear screen and scrollback', `${ESC}[2J${ESC}[3J${ESC}[Hx`, 'x'],
    ['CSI with private parameters', `${ESC}[?1049hx`, 'x'],
    ['OSC 52 clipboard, BEL-terminated', `a${ESC}]52;c;cm0gLXJmIH4=${BEL}b`, 'ab'],
    ['OSC 8 link, ST-terminated', `${ESC}]8;;https://evil.example${ESC}\\click${ESC}]8;;${ESC}\\`, 'click'],
    ['OSC window title', `${ESC}]0;pwned${BEL}ok`, 'ok'],
    ['DCS string', `${ESC}Pq#0;2;0;0;0${ESC}\\after`, 'after'],
    ['APC string', `${ESC}_hidden${ESC}\\x`, 'x'],
    ['8-bit CSI', 'a\u009b31mb', 'ab'],
    ['8-bit OSC ended by 8-bit ST', 'a\u009d52;c;eA==\u009cb', 'ab'],
    ['two-byte ESC sequence (reset)', `a${ESC}cb`, 'ab'],
    ['lone ESC at the end', `a${ESC}`, 'a\uFFFD'],
    ['unterminated OSC swallows to the end', `a${ESC}]52;c;AAAA`, 'a'],
    ['C0 controls', 'a\u0000b\u0008c\u0007d', 'a\uFFFDb\uFFFDc\uFFFDd'],
    ['lone CR', 'safe\rEVIL', 'safe\uFFFDEVIL'],
    ['DEL and other C1', 'a\u007fb\u0085c', 'a\uFFFDb\uFFFDc'],
    ['bidi override', 'a\u202eb\u2066c', 'a\uFFFDb\uFFFDc'],
  ])('%s', (_name, input, expected) => {
    expect(safeText(input)).toBe(expected)
  })

  it('keeps ordinary text, Unicode, newlines and tabs by default', () => {
    const text = 'Fix: `kb daemon stop`\n\tthen retry — 日本語 😀 café\r\nnext'
    expect(safeText(text)).toBe('Fix: `kb daemon stop`\n\tthen retry — 日本語 😀 café\nnext')
    expect(safeText('plain')).toBe('plain')
  })

  it('turns line breaks and tabs into spaces for one-line cells', () => {
    expect(safeText('a\nb\tc\r\nd', {newlines: false, tabs: false})).toBe('a b c d')
  })

  it('never lets an ESC or C1 byte through, whatever the input', () => {
    const alphabet = ['\u001b', '[', ']', '\\', 'P', '\u0007', '\u009b', '\u009c', '\u009d', 'a', '1', ';', 'm', '\n', '\r']
    for (let n = 0; n < 2000; n++) {
      let s = ''
      for (let k = 0; k < 12; k++) s += alphabet[(n * 7 + k * 13 + ((n >> k) & 5)) % alphabet.length]
      expect(safeText(s)).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/)
    }
  })

  it('is linear on 100,000 characters of each hostile shape', () => {
    const shapes = [
      ESC.repeat(100_000),
      `${ESC}[`.repeat(50_000),
      `${ESC}]`.repeat(50_000),
      '\u009b1'.repeat(50_000),
      `${ESC}P`.repeat(50_000),
      '\r'.repeat(100_000),
    ]
    for (const s of shapes) {
      const t = performance.now()
      safeText(s)
      expect(performance.now() - t).toBeLessThan(1000)
    }
  })
})
