/**
 * @module Scanning a long text without holding the event loop (docs/security.md, "Linear time, whatever the
 * text"): the scan is linear, but 100,000 characters dense with findings still cost tens of milliseconds of
 * CPU and garbage collection, during which no other request is served. A text past OFF_THREAD_CHARS is
 * scanned by scanText on a worker thread of its own (scan-worker.ts), the same function, so the findings are
 * the same; shorter texts, and any scan when the worker cannot run, are scanned here.
 *
 * The worker runs compiled JavaScript: beside this module in `dist/`, or — when the daemon runs from its
 * TypeScript sources, as in tests — the build's copy (`npm test` builds first).
 */
import {existsSync} from 'node:fs'
import {fileURLToPath} from 'node:url'
import {Worker} from 'node:worker_threads'
import type {Match} from './detectors.js'
import {KIND_NAMES, scanText} from './scanner.js'

/** Shorter texts cost under a millisecond or two: a round trip to the worker would cost more. */
export const OFF_THREAD_CHARS = 16_384

interface Packed {
  id: number
  starts: Int32Array
  ends: Int32Array
  kinds: Uint8Array
}

const WORKER_FILES = ['./scan-worker.js', '../../dist/server/scan/scan-worker.js'].map((f) => new URL(f, import.meta.url))

let worker: Worker | null = null
let unavailable = false
let nextId = 0
const waiting = new Map<number, {resolve: (m: Match[]) => void; reject: (e: unknown) => void}>()

function theWorker(): Worker | null {
  if (worker || unavailable) return worker
  const file = WORKER_FILES.find((u) => existsSync(fileURLToPath(u)))
  if (!file) {
    unavailable = true
    return null
  }
  const w = new Worker(file)
  // An idle worker does not keep the daemon (or a test) alive.
  w.unref()
  w.on('message', (p: Packed) => {
    const pending = waiting.get(p.id)
    waiting.delete(p.id)
    const found: Match[] = new Array(p.starts.length)
    for (let i = 0; i < p.starts.length; i++) found[i] = {kind: KIND_NAMES[p.kinds[i]!]!, start: p.starts[i]!, end: p.ends[i]!}
    pending?.resolve(found)
  })
  const fail = (e: unknown): void => {
    if (worker === w) worker = null
    for (const pending of waiting.values()) pending.reject(e)
    waiting.clear()
  }
  w.on('error', fail)
  w.on('exit', (code) => fail(new Error(`the scan worker exited (${code})`)))
  worker = w
  return w
}

/** scanText(text), on the worker thread when the text is long; here when it is short or the worker is not there. */
export async function scanAside(text: string): Promise<Match[]> {
  const w = text.length >= OFF_THREAD_CHARS ? theWorker() : null
  if (!w) return scanText(text)
  const id = nextId++
  try {
    return await new Promise<Match[]>((resolve, reject) => {
      waiting.set(id, {resolve, reject})
      w.ref()
      w.postMessage({id, text})
    })
  } catch {
    // The worker failed (and is replaced on the next long text): this text is scanned here.
    return scanText(text)
  } finally {
    if (waiting.size === 0) worker?.unref()
  }
}
