/**
 * @module What `kb browse` asks of the machine around it: a browser for `o`, a clipboard for `y`. The
 * clipboard is the first of wl-copy, xclip, xsel, pbcopy that works, else the terminal's own (OSC 52,
 * which tmux, iTerm2, kitty, WezTerm and Windows Terminal pass to the system clipboard — also over ssh).
 */
import {spawn} from 'node:child_process'
import {canOpenBrowser, openBrowser} from '../oauth/browser.js'

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

/**
 * Copies `text` to the clipboard; returns where it went ("xclip", …, or "the terminal (OSC 52)").
 * X11/Wayland tools are tried only where a display is set, since without one they can only fail.
 */
export async function copyText(text: string, o: {env?: NodeJS.ProcessEnv; write?: (s: string) => void} = {}): Promise<string> {
  const env = o.env ?? process.env
  const display = Boolean(env.DISPLAY || env.WAYLAND_DISPLAY) || process.platform === 'darwin'
  if (display) for (const [cmd, args] of CLIPBOARD_TOOLS) if (await pipeTo(cmd, args, text, env)) return cmd
  const osc = `\u001B]52;c;${Buffer.from(text).toString('base64')}\u0007`
  // Inside tmux the sequence must be wrapped to reach the outer terminal (with set-clipboard on, tmux keeps it too).
  const seq = env.TMUX ? `\u001BPtmux;${osc.replace(/\u001B/g, '\u001B\u001B')}\u001B\\` : osc
  ;(o.write ?? ((s: string) => process.stdout.write(s)))(seq)
  return 'the terminal (OSC 52)'
}

/** Opens `url` in the browser; false when no browser can appear or none could be started. */
export async function openUrl(url: string): Promise<boolean> {
  if (!canOpenBrowser()) return false
  return openBrowser(url)
}
