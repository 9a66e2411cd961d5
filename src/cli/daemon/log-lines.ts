/**
 * @module `kb daemon logs` on a terminal (docs/cli.md, "The daemon"): each JSON line of daemon.log as one line for
 * people — local time, level word, message, then the request's method, path, status and duration, then any other
 * field as `key=value`. Piped or with --json the lines stay as written.
 */
import {dim, red, yellow, type OutputMode} from '../output/format.js'
import {safeText} from '../output/safe-text.js'

/** pino's numeric levels (docs/operations.md). */
const LEVELS: Record<number, string> = {10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL'}
/** Fields every line has, or shown in their own place. */
const SHOWN = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'reqId', 'method', 'url', 'status', 'ms', 'err'])

const p2 = (n: number): string => String(n).padStart(2, '0')

/** `2026-11-27 19:20:13.755` in the reader's time zone. */
function localTime(ms: number): string {
  const d = new Date(ms)
  return `${d.getFullYear()}-${p2(d.getMonth() + 1)}-${p2(d.getDate())} ${p2(d.getHours())}:${p2(d.getMinutes())}:${p2(d.getSeconds())}.${String(d.getMilliseconds()).padStart(3, '0')}`
}

const one = (s: string): string => safeText(s, {newlines: false, tabs: false})

function value(v: unknown): string {
  return one(typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v)))
}

/** One line of the log for people; a line that is not a JSON object (a crash's output) is shown as it is. */
export function prettyLogLine(line: string, mode: OutputMode): string {
  let o: Record<string, unknown>
  try {
    const parsed: unknown = JSON.parse(line)
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return safeText(line)
    o = parsed as Record<string, unknown>
  } catch {
    return safeText(line)
  }
  const level = typeof o.level === 'number' ? (LEVELS[o.level] ?? String(o.level)) : value(o.level ?? '')
  const word = level.padEnd(5)
  const coloured = o.level === 40 ? yellow(mode, word) : typeof o.level === 'number' && o.level >= 50 ? red(mode, word) : word
  const parts = [dim(mode, typeof o.time === 'number' ? localTime(o.time) : value(o.time ?? '')), coloured, value(o.msg ?? '')]
  if (o.method !== undefined) parts.push(`${value(o.method)} ${value(o.url ?? '')}`)
  if (o.status !== undefined) parts.push(value(o.status))
  if (typeof o.ms === 'number') parts.push(`${o.ms} ms`)
  for (const [k, v] of Object.entries(o))
    if (!SHOWN.has(k) || (k === 'url' && o.method === undefined)) parts.push(dim(mode, `${one(k)}=${value(v)}`))
  const out = [parts.filter((x) => x !== '').join('  ')]
  const err = o.err as {type?: unknown; message?: unknown; stack?: unknown} | undefined
  if (err && typeof err === 'object') {
    const stack = typeof err.stack === 'string' ? err.stack : `${value(err.type ?? 'Error')}: ${value(err.message ?? '')}`
    out.push(
      ...safeText(stack)
        .split('\n')
        .map((l) => `    ${l}`),
    )
  }
  return out.join('\n')
}
