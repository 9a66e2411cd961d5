/**
 * @module The start of `kb show` on a terminal: the renderer begins to load before oclif does, so that
 * its import overlaps oclif's start and the request instead of following the answer (docs/performance.md,
 * "Rendering an entry's Markdown"). bin/run.js loads this module only for `kb show` with a terminal on stdout.
 */
import {outputMode} from '../output/format.js'

/** Flags with which `kb show` renders no Markdown: JSON, the Markdown as stored, the web view, help. */
const NOT_RENDERED = new Set(['--json', '--raw', '--web', '--help', '-h'])

/** Whether `kb show <args>` will render Markdown: colours on, and none of NOT_RENDERED asked for. */
export function willRender(args: string[], mode = outputMode()): boolean {
  return mode.color && !args.some((a) => NOT_RENDERED.has(a))
}

/** Starts importing the renderer when `kb show <args>` will render; the command awaits the same import. */
export function preloadRenderer(args: string[]): void {
  // A failure to load shows where the command imports it; here it would be an unhandled rejection.
  if (willRender(args)) import('./markdown.js').catch(() => undefined)
}
