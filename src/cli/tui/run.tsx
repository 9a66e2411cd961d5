/**
 * @module Starts the `kb browse` screen on the terminal and resolves when the person leaves. The only
 * module `commands/browse.ts` imports (dynamically), so Ink and React load for this command alone.
 */
import {render} from 'ink'
import {BrowseApp, RENDER_FPS, type BrowseProps} from './app.js'
import {copyText, openUrl} from './system.js'
import {entryEditor} from './edit.js'
import {enterScreen, inkStream, pauseScreen} from './terminal.js'

export type RunBrowseOptions = Omit<BrowseProps, 'openUrl' | 'copy' | 'color' | 'edit'>

/** Honours NO_COLOR (any non-empty value), as the rest of the CLI does. */
function colorWanted(env: NodeJS.ProcessEnv = process.env): boolean {
  return !('NO_COLOR' in env && env.NO_COLOR !== '') && env.TERM !== 'dumb'
}

export async function runBrowse(options: RunBrowseOptions): Promise<void> {
  const leave = enterScreen(process.stdout)
  try {
    // The editor takes the terminal; back, Ink forgets what it drew, so the next frame is drawn whole.
    const suspend = (): (() => void) => {
      const resume = pauseScreen(process.stdout, process.stdin)
      return () => {
        resume()
        app.clear()
      }
    }
    const edit = entryEditor(options.client, suspend)
    const app = render(<BrowseApp {...options} color={colorWanted()} openUrl={openUrl} copy={(text) => copyText(text)} edit={edit} />, {
      stdout: inkStream(process.stdout),
      exitOnCtrlC: false,
      maxFps: RENDER_FPS,
    })
    await app.waitUntilExit()
    app.cleanup()
  } finally {
    leave()
  }
}
