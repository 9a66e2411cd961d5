/**
 * @module The terminal around `kb browse`, as vim, less and lazygit leave it: the UI draws on the
 * alternate screen, so the shell's screen and scrollback come back untouched on exit; bracketed paste
 * (a paste arrives marked, whole) and focus reports (the UI refreshes when the terminal regains focus)
 * are on while it runs. Ink never gets to clear the scrollback: `ESC[3J` is dropped from what it writes.
 */

const ENTER_SCREEN = '\u001B[?1049h\u001B[H\u001B[2J\u001B[?2004h\u001B[?1004h'
const LEAVE_SCREEN = '\u001B[?1004l\u001B[?2004l\u001B[?1049l'
const CLEAR_SCROLLBACK = '\u001B[3J'
/** Home and clear the (alternate) screen: a resize redraws on a clean screen. */
const CLEAR_SCREEN = '\u001B[H\u001B[2J'

/** `out` as Ink sees it: everything is written except a request to clear the scrollback. */
export function inkStream(out: NodeJS.WriteStream): NodeJS.WriteStream {
  const write = (chunk: unknown, ...rest: unknown[]): boolean =>
    (out.write as (c: unknown, ...r: unknown[]) => boolean)(
      typeof chunk === 'string' ? chunk.split(CLEAR_SCROLLBACK).join('') : chunk,
      ...rest,
    )
  return new Proxy(out, {
    get(target, prop) {
      if (prop === 'write') return write
      const v = Reflect.get(target, prop, target) as unknown
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v
    },
  })
}

/**
 * Hands the terminal to another program (the editor of the edit key): the shell's screen, cooked input; returns
 * the way back to the alternate screen, cleared, for a full redraw.
 */
export function pauseScreen(out: NodeJS.WriteStream, input: NodeJS.ReadStream): () => void {
  out.write(LEAVE_SCREEN)
  if (input.isTTY) input.setRawMode(false)
  return () => {
    if (input.isTTY) input.setRawMode(true)
    out.write(ENTER_SCREEN)
  }
}

/** Signals that end the process without an `exit` event unless something listens for them. */
const SIGNALS: readonly NodeJS.Signals[] = ['SIGTERM', 'SIGHUP', 'SIGINT']

/**
 * Enters the alternate screen with paste and focus reports on; returns the way back, which also runs if
 * the process exits first (a crash, a signal). Call before Ink renders, so the resize handler runs first.
 */
export function enterScreen(out: NodeJS.WriteStream): () => void {
  out.write(ENTER_SCREEN)
  const onResize = (): void => {
    out.write(CLEAR_SCREEN)
  }
  out.on('resize', onResize)
  let left = false
  const leave = (): void => {
    if (left) return
    left = true
    out.off('resize', onResize)
    process.off('exit', leave)
    for (const sig of SIGNALS) process.off(sig, onSignal)
    out.write(LEAVE_SCREEN)
  }
  // `kill` or a closed terminal: the shell gets its screen back, then the signal ends the process as it would have.
  const onSignal = (sig: NodeJS.Signals): void => {
    leave()
    if (process.stdin.isTTY) process.stdin.setRawMode(false)
    process.kill(process.pid, sig)
  }
  process.on('exit', leave)
  for (const sig of SIGNALS) process.on(sig, onSignal)
  return leave
}
