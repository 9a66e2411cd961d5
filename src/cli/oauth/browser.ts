/**
 * @module Opening the person's browser at a URL, detached so kb never waits on it — and only where a
 * browser can show up at all. Only http and https URLs are opened, and never through a shell: the URL is
 * one argument of `open` (macOS), `rundll32 url.dll,FileProtocolHandler` (Windows) or `xdg-open`, so
 * characters a shell would read (`&`, `|`, `^`, `%`, quotes) stay part of the URL.
 */
import {spawn} from 'node:child_process'

/** Whether a browser window can appear: always on macOS and Windows, elsewhere only with a display. */
export function canOpenBrowser(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): boolean {
  if (platform === 'darwin' || platform === 'win32') return true
  return Boolean(env.DISPLAY || env.WAYLAND_DISPLAY)
}

/** The program and argument vector that open `url`, or null for a URL that is not http or https. */
export function openerCommand(url: string, platform: NodeJS.Platform = process.platform): {cmd: string; args: string[]} | null {
  let href: string
  try {
    const u = new URL(url)
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return null
    // Serialised, so spaces and quotes are percent-encoded: the URL is one word whoever parses it.
    href = u.href
  } catch {
    return null
  }
  if (platform === 'darwin') return {cmd: 'open', args: [href]}
  // `cmd /c start` would read the URL as a command line; rundll32 hands it to the URL handler as is.
  if (platform === 'win32') return {cmd: 'rundll32', args: ['url.dll,FileProtocolHandler', href]}
  return {cmd: 'xdg-open', args: [href]}
}

/** Starts the opener; resolves false for a URL it will not open, or an opener that could not be started. */
export function openBrowser(url: string, platform: NodeJS.Platform = process.platform): Promise<boolean> {
  const opener = openerCommand(url, platform)
  if (!opener) return Promise.resolve(false)
  return new Promise((resolve) => {
    try {
      const child = spawn(opener.cmd, opener.args, {detached: true, stdio: 'ignore', windowsHide: true, shell: false})
      child.once('error', () => resolve(false))
      child.once('spawn', () => {
        child.unref()
        resolve(true)
      })
    } catch {
      resolve(false)
    }
  })
}
