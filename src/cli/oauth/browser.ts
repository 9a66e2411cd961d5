/**
 * @module Opening the person's browser at a URL, detached so kb never waits on it: `open` on macOS,
 * `start` on Windows, `xdg-open` elsewhere — and only where a browser can show up at all.
 */
import {spawn} from 'node:child_process'

/** Whether a browser window can appear: always on macOS and Windows, elsewhere only with a display. */
export function canOpenBrowser(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): boolean {
  if (platform === 'darwin' || platform === 'win32') return true
  return Boolean(env.DISPLAY || env.WAYLAND_DISPLAY)
}

/** Starts the opener; resolves false when it could not even be started (not installed). */
export function openBrowser(url: string, platform: NodeJS.Platform = process.platform): Promise<boolean> {
  let cmd: string
  let args: string[]
  if (platform === 'darwin') {
    cmd = 'open'
    args = [url]
  } else if (platform === 'win32') {
    // `start` is a cmd built-in; its first quoted argument is a window title, and & would split the command.
    cmd = 'cmd'
    args = ['/c', 'start', '""', url.replace(/&/g, '^&')]
  } else {
    cmd = 'xdg-open'
    args = [url]
  }
  return new Promise((resolve) => {
    try {
      const child = spawn(cmd, args, {detached: true, stdio: 'ignore', windowsHide: true, windowsVerbatimArguments: platform === 'win32'})
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
