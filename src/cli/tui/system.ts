/**
 * @module What `kb browse` asks of the machine around it: a browser for `o`, a clipboard for `y`. The
 * clipboard is the first that takes the text of: wl-copy, xclip, xsel, pbcopy (where a display is);
 * inside tmux, tmux's paste buffer (`tmux load-buffer -w -`, which tmux also passes on to the terminal's
 * clipboard where `set-clipboard` allows); else the terminal's own clipboard via a plain OSC 52, which
 * kb cannot confirm — so it says "sent", not "copied".
 */
import {spawn} from 'node:child_process'
import {canOpenBrowser, openBrowser} from '../oauth/browser.js'
import type {CopyResult} from './messages.js'

const CLIPBOARD_TOOLS: [string, string[]][] = [
  ['wl-copy', []],
  ['xclip', ['-selection', 'clipboard']],
  ['xsel', ['--clipboard', '--input']],
  ['pbcopy', []],
]

function pipeTo(cmd: string, args: string[], text: string, env: NodeJS.ProcessEnv): Promise<boolean> {
  return new Promise((resolve) => {
    try {
      const child = spawn(cmd, args, {stdio: ['pipe', 'ignore', 'ignore'], env})
      const timer = setTimeout(() => {
        child.kill('SIGKILL')
        resolve(false)
      }, 2000)
      child.once('error', () => {
        clearTimeout(timer)
        resolve(false)
      })
      child.once('exit', (code) => {
        clearTimeout(timer)
        resolve(code === 0)
      })
      child.stdin!.on('error', () => undefined)
      child.stdin!.end(text)
    } catch {
      resolve(false)
    }
  })
}

/** Copies `text`; says where it went and whether that is certain. */
export async function copyText(
  text: string,
  o: {env?: NodeJS.ProcessEnv; write?: (s: string) => void; platform?: NodeJS.Platform} = {},
): Promise<CopyResult> {
  const env = o.env ?? process.env
  // X11/Wayland tools are tried only where a display is set, since without one they can only fail.
  const display = Boolean(env.DISPLAY || env.WAYLAND_DISPLAY) || (o.platform ?? process.platform) === 'darwin'
  if (display)
    for (const [cmd, args] of CLIPBOARD_TOOLS)
      if (await pipeTo(cmd, args, text, env)) return {where: `the clipboard (${cmd})`, certain: true}
  if (env.TMUX) {
    // -w (tmux 3.2+) also sets the terminal's clipboard; older tmux refuses the flag.
    for (const args of [
      ['load-buffer', '-w', '-'],
      ['load-buffer', '-'],
    ])
      if (await pipeTo('tmux', args, text, env)) return {where: "tmux's paste buffer (prefix ] pastes it)", certain: true}
  }
  // Plain, even inside tmux: tmux reads it itself when set-clipboard is on, while a wrapped
  // (passthrough) one is dropped unless allow-passthrough is set.
  ;(o.write ?? ((s: string) => process.stdout.write(s)))(`\u001B]52;c;${Buffer.from(text).toString('base64')}\u0007`)
  return {where: "the terminal's clipboard (OSC 52)", certain: false}
}

/** Opens `url` in the browser; false when no browser can appear, the URL is not http(s), or none started. */
export async function openUrl(url: string): Promise<boolean> {
  if (!canOpenBrowser()) return false
  return openBrowser(url)
}
