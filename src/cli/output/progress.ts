/**
 * @module Progress of long transfers on a terminal (docs/cli.md, "Progress"): one line on stderr, redrawn
 * ten times a second by cli-progress, saying what is done (entries, bytes), the rate and the time left when
 * the total is known. Drawn only when stderr is a terminal, `CI` is unset and `--json` is not given; else
 * nothing (the command's own summary is then the only line on stderr).
 */
import type {SingleBar} from 'cli-progress'
import {fitWidth} from './format.js'

export interface Done {
  /** Entries done, when the work is counted in entries (a backup is a file: bytes only). */
  entries?: number
  bytes: number
}

export interface Totals {
  entries?: number
  bytes?: number
}

/** A progress line being drawn; every method is a no-op when it is not. */
export interface Progress {
  update(done: Done): void
  /** Replaces the counts by a word on what happens now (the server applying an import, a check). */
  phase(text: string): void
  /** Learns a total after the start (an export announces its entries in its first line). */
  total(totals: Totals): void
  /** Clears the line. */
  stop(): void
}

/** Live progress may be drawn: stderr is a terminal, no `--json`, not CI, not a dumb terminal. */
export function progressWanted(json: boolean, env: NodeJS.ProcessEnv = process.env, stderr: NodeJS.WriteStream = process.stderr): boolean {
  return Boolean(stderr.isTTY) && !json && !env.CI && env.TERM !== 'dumb'
}

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB']

/** `1.5 MiB`, `512 B`. */
export function formatBytes(n: number): string {
  let v = n
  let u = 0
  while (v >= 1024 && u < UNITS.length - 1) {
    v /= 1024
    u++
  }
  return u === 0 ? `${n} B` : `${v.toFixed(1)} ${UNITS[u]}`
}

/** `9 s`, `2 min 5 s`, `1 h 3 min`. */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds))
  if (s < 60) return `${s} s`
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`
}

/**
 * The progress line's text: `export  1,200 of 5,000 entries · 3.1 MiB · 1.2 MiB/s · 9 s left`. Time left
 * comes from the entries when their total is known, else from the bytes; none before a second has passed.
 */
export function describeProgress(label: string, done: Done, totals: Totals, elapsedMs: number): string {
  const n = (x: number): string => x.toLocaleString('en-US')
  const entries = done.entries ?? 0
  const parts: string[] = []
  if (totals.entries !== undefined) parts.push(`${n(entries)} of ${n(totals.entries)} entries`)
  else if (done.entries !== undefined) parts.push(`${n(entries)} entries`)
  parts.push(totals.bytes !== undefined ? `${formatBytes(done.bytes)} of ${formatBytes(totals.bytes)}` : formatBytes(done.bytes))
  const seconds = elapsedMs / 1000
  if (seconds >= 1) {
    parts.push(`${formatBytes(Math.round(done.bytes / seconds))}/s`)
    const [d, t] = totals.entries !== undefined ? [entries, totals.entries] : [done.bytes, totals.bytes]
    if (t !== undefined && d > 0 && d <= t) parts.push(`${formatDuration((seconds * (t - d)) / d)} left`)
  }
  return `${label}  ${parts.join(' · ')}`
}

const NONE: Progress = {update: () => undefined, phase: () => undefined, total: () => undefined, stop: () => undefined}

/**
 * Starts a progress line labelled `label` (`kb import`) showing `first` (`{entries: 0, bytes: 0}` for work
 * counted in entries), or a silent one when progress is not wanted.
 */
export async function startProgress(label: string, totals: Totals, wanted: boolean, first: Done = {bytes: 0}): Promise<Progress> {
  if (!wanted) return NONE
  const {SingleBar} = (await import('cli-progress')).default
  const started = Date.now()
  let done = first
  let phase: string | null = null
  const known = {...totals}
  const width = (): number => Math.max(20, (process.stderr.columns || 80) - 1)
  // The text is built here (cli-progress draws and throttles it); kept to one terminal line, so a redraw
  // never leaves a wrapped remnant, and line wrapping is never switched off (a kill would leave it off).
  const bar: SingleBar = new SingleBar({
    stream: process.stderr,
    fps: 10,
    linewrap: true,
    clearOnComplete: true,
    hideCursor: false,
    format: () => fitWidth(phase ? `${label}  ${phase}` : describeProgress(label, done, known, Date.now() - started), width()),
  })
  bar.start(1, 0)
  return {
    update: (d) => {
      done = d
      phase = null
      bar.update(0)
    },
    phase: (text) => {
      phase = text
      // Drawn at once: a phase is rare news (the copy is being taken, the server applies), not a tick.
      bar.render()
    },
    total: (t) => Object.assign(known, t),
    stop: () => bar.stop(),
  }
}
