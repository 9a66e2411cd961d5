/**
 * The key decoder: keys that arrive in one read come out one by one, sequences cut between reads wait
 * for their rest, a bracketed paste comes out whole.
 */
import {describe, expect, it} from 'vitest'
import {createKeyDecoder, decodeAll, key, MAX_PASTE} from '../../../src/cli/tui/keys.js'

const names = (input: string): string[] =>
  decodeAll(input).map((k) => (k.name === 'char' || k.name === 'ctrl' || k.name === 'paste' ? `${k.name}:${k.text}` : k.name))

describe('key decoder', () => {
  it('splits a batch into its keys', () => {
    expect(names('jjjj')).toEqual(['char:j', 'char:j', 'char:j', 'char:j'])
    expect(names('\u007F\u007F')).toEqual(['backspace', 'backspace'])
    expect(names('\u0015abc')).toEqual(['ctrl:u', 'char:a', 'char:b', 'char:c'])
    expect(names('ab\r')).toEqual(['char:a', 'char:b', 'enter'])
    expect(names('a\r\nb\n')).toEqual(['char:a', 'enter', 'char:b', 'enter'])
    expect(names('\t\u001B[Z\u0003')).toEqual(['tab', 'backTab', 'ctrl:c'])
  })

  it('reads arrows, paging, home/end, delete and focus reports (CSI, SS3 and modified forms)', () => {
    expect(names('\u001B[A\u001B[B\u001B[C\u001B[D')).toEqual(['up', 'down', 'right', 'left'])
    expect(names('\u001BOA\u001BOB\u001BOH\u001BOF')).toEqual(['up', 'down', 'home', 'end'])
    expect(names('\u001B[5~\u001B[6~\u001B[1~\u001B[4~\u001B[7~\u001B[8~\u001B[H\u001B[F\u001B[3~')).toEqual([
      'pageUp',
      'pageDown',
      'home',
      'end',
      'home',
      'end',
      'home',
      'end',
      'delete',
    ])
    expect(names('\u001B[1;5A\u001B[1;2B')).toEqual(['up', 'down'])
    expect(names('\u001B[I\u001B[O')).toEqual(['focusIn', 'focusOut'])
    expect(names('\u001B[99~\u001B[2J')).toEqual([])
  })

  it('tells a lone Esc from a sequence cut between two reads', () => {
    const d = createKeyDecoder()
    expect(d.push('\u001B')).toEqual([])
    expect(d.pending()).toBe(true)
    expect(d.push('[A')).toEqual([key.special('up')])
    expect(d.push('\u001B[')).toEqual([])
    expect(d.push('6~j')).toEqual([key.special('pageDown'), key.char('j')])
    expect(d.push('\u001B')).toEqual([])
    expect(d.flush()).toEqual([key.special('escape')])
    expect(d.pending()).toBe(false)
    // Esc typed just before a letter in the same read is still Esc, then the letter.
    expect(names('\u001Bq')).toEqual(['escape', 'char:q'])
    expect(names('\u001B\u001B')).toEqual(['escape', 'escape'])
  })

  it('keeps a bracketed paste whole, across reads, newlines and escapes included', () => {
    expect(names('c\u001B[200~line one\nline two\r\nline three\rfour\u001B[201~\r')).toEqual([
      'char:c',
      'paste:line one\nline two\nline three\nfour',
      'enter',
    ])
    const d = createKeyDecoder()
    expect(d.push('\u001B[200~first\n')).toEqual([])
    expect(d.flush()).toEqual([])
    expect(d.push('second\u001B[2')).toEqual([])
    expect(d.push('01~')).toEqual([key.paste('first\nsecond')])
    expect(decodeAll(`\u001B[200~${'x'.repeat(MAX_PASTE + 10)}\u001B[201~`)[0]).toMatchObject({name: 'paste', text: 'x'.repeat(MAX_PASTE)})
  })

  it('reads wide characters and emoji as one key each; drops C1 controls', () => {
    expect(names('日本😀')).toEqual(['char:日', 'char:本', 'char:😀'])
    expect(names('a\u009Bb')).toEqual(['char:a', 'char:b'])
  })
})
