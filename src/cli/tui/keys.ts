/**
 * @module Raw terminal input → keys. A terminal may hand several keys to one read (fast typing, tmux
 * send-keys, a paste without brackets): every one of them comes out as its own key, in order. A
 * bracketed paste (`ESC[200~ … ESC[201~`) comes out whole as one `paste` key, its line breaks as `\n`. A sequence
 * cut between two reads waits for the rest; a lone Esc is told apart from the start of a sequence by
 * `flush()`, which the caller runs when no more input follows shortly.
 */

export type SpecialKey =
  | 'enter'
  | 'tab'
  | 'backTab'
  | 'escape'
  | 'backspace'
  | 'delete'
  | 'up'
  | 'down'
  | 'left'
  | 'right'
  | 'pageUp'
  | 'pageDown'
  | 'home'
  | 'end'
  | 'focusIn'
  | 'focusOut'

export type Key =
  /** One printable character (a code point). */
  | {name: 'char'; text: string}
  /** Ctrl and a letter: `text` is the letter ("c" for Ctrl-C). */
  | {name: 'ctrl'; text: string}
  /** A bracketed paste, whole. */
  | {name: 'paste'; text: string}
  | {name: SpecialKey}

export interface KeyDecoder {
  /** The keys complete in what has arrived so far. */
  push(chunk: string): Key[]
  /** Ends a sequence left incomplete: a lone ESC is the Esc key. Outside a paste only. */
  flush(): Key[]
  /** Whether input is held back waiting for the rest of a sequence. */
  pending(): boolean
}

/** A paste longer than this keeps its start (nothing kb takes is that long). */
export const MAX_PASTE = 1 << 20

const ESC = '\u001B'
const PASTE_END = '\u001B[201~'

const CSI_FINAL: Record<string, SpecialKey> = {
  A: 'up',
  B: 'down',
  C: 'right',
  D: 'left',
  H: 'home',
  F: 'end',
  Z: 'backTab',
  I: 'focusIn',
  O: 'focusOut',
}
const CSI_TILDE: Record<string, SpecialKey> = {
  '1': 'home',
  '7': 'home',
  '4': 'end',
  '8': 'end',
  '3': 'delete',
  '5': 'pageUp',
  '6': 'pageDown',
}
const SS3: Record<string, SpecialKey> = {A: 'up', B: 'down', C: 'right', D: 'left', H: 'home', F: 'end'}

export const key = {
  char: (text: string): Key => ({name: 'char', text}),
  ctrl: (letter: string): Key => ({name: 'ctrl', text: letter}),
  paste: (text: string): Key => ({name: 'paste', text}),
  special: (name: SpecialKey): Key => ({name}),
}

/** Where a CSI sequence starting at `i` (just after `ESC[`) ends: the index of its final byte, -1 if cut, -2 if malformed. */
function csiEnd(s: string, i: number): number {
  for (; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c >= 0x40 && c <= 0x7e) return i
    if (c < 0x20 || c > 0x3f) return -2
  }
  return -1
}

/** The key of a complete CSI sequence (its parameters and final character), 'paste' for the start of a paste, or null. */
function csiKey(params: string, fin: string): Key | 'paste' | null {
  if (fin === '~' && params === '200') return 'paste'
  if (fin === '~') {
    const k = CSI_TILDE[params.split(';')[0]!]
    return k ? key.special(k) : null
  }
  const k = CSI_FINAL[fin]
  // Modified arrows (`ESC[1;5A`) move like plain ones; a parameter on I/O/Z is something else.
  return k && (params === '' || (params.startsWith('1;') && !'IOZ'.includes(fin))) ? key.special(k) : null
}

/** The key of one character that starts no sequence (a C1 control character is none). */
function plainKey(c: string, code: number): Key | null {
  if (c === '\r' || c === '\n') return key.special('enter')
  if (c === '\t') return key.special('tab')
  if (c === '\u007F' || c === '\b') return key.special('backspace')
  if (code < 0x20) return key.ctrl(String.fromCharCode(code + 0x60))
  if (code < 0x80 || code > 0x9f) return key.char(String.fromCodePoint(code))
  return null
}

export function createKeyDecoder(): KeyDecoder {
  let held = ''
  let paste: string | null = null

  const decode = (s: string, out: Key[], final: boolean): string => {
    let i = 0
    while (i < s.length) {
      if (paste !== null) {
        const end = s.indexOf(PASTE_END, i)
        if (end < 0) {
          // Keep a tail that may be the start of the end marker.
          let keep = Math.min(PASTE_END.length - 1, s.length - i)
          while (keep > 0 && !PASTE_END.startsWith(s.slice(s.length - keep))) keep--
          paste = (paste + s.slice(i, s.length - keep)).slice(0, MAX_PASTE)
          return s.slice(s.length - keep)
        }
        // Terminals paste line breaks as CR (tmux, and most others, turn LF into CR): one kind of break.
        out.push(key.paste((paste + s.slice(i, end)).slice(0, MAX_PASTE).replace(/\r\n?/g, '\n')))
        paste = null
        i = end + PASTE_END.length
        continue
      }
      const c = s[i]!
      const code = s.codePointAt(i)!
      if (c === ESC) {
        if (i + 1 >= s.length) {
          if (!final) return s.slice(i)
          out.push(key.special('escape'))
          i++
          continue
        }
        const next = s[i + 1]
        if (next === '[') {
          const end = csiEnd(s, i + 2)
          if (end === -1 && !final) return s.slice(i)
          if (end < 0) {
            // Malformed or cut for good: the Esc stands alone, the rest is read as typed.
            out.push(key.special('escape'))
            i++
            continue
          }
          const k = csiKey(s.slice(i + 2, end), s[end]!)
          if (k === 'paste') paste = ''
          else if (k) out.push(k)
          i = end + 1
          continue
        }
        if (next === 'O') {
          if (i + 2 >= s.length && !final) return s.slice(i)
          const k = SS3[s[i + 2] ?? '']
          if (k) {
            out.push(key.special(k))
            i += 3
            continue
          }
        }
        // ESC before anything else (Alt-x, or Esc typed just before a key in the same read): the Esc
        // counts on its own and what follows is read as usual; kb binds no Alt keys.
        out.push(key.special('escape'))
        i++
        continue
      }
      const k = plainKey(c, code)
      if (k) out.push(k)
      // CR LF is one Enter; a code point past U+FFFF is two UTF-16 units.
      i += (c === '\r' && s[i + 1] === '\n') || code > 0xffff ? 2 : 1
    }
    return ''
  }

  return {
    push(chunk) {
      const out: Key[] = []
      held = decode(held + chunk, out, false)
      return out
    },
    flush() {
      if (paste !== null || held === '') return []
      const out: Key[] = []
      const rest = held
      held = ''
      decode(rest, out, true)
      return out
    },
    pending: () => held !== '' || paste !== null,
  }
}

/** Every key in `input`, as if it had all arrived in one read and nothing followed (tests, replays). */
export function decodeAll(input: string): Key[] {
  const d = createKeyDecoder()
  return [...d.push(input), ...d.flush()]
}
