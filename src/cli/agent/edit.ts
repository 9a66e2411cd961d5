/**
 * @module What the config editors of `kb agent install` share: the editor interface, the refusal of a file
 * that cannot be read (with its line and column), and the comparison that makes a second install a no-op.
 */
import {KbError} from '../../shared/errors.js'
import {MANAGED_KEYS} from './tools.js'

/** Edits kb's entry in one tool's config file, keeping everything else as it is written. */
export interface ConfigEditor {
  /** kb's entry in `text` (undefined when there is none). */
  read(text: string): unknown
  /** `text` (null: no file yet) with kb's entry set to `entry`; `text` itself when nothing needs to change. */
  set(text: string | null, entry: Record<string, unknown>): string
  /** `text` without kb's entry; null when nothing else is left, so the file can go. */
  remove(text: string): string | null
}

/** 1-based line and column of `offset` in `text`. */
export function lineColumn(text: string, offset: number): {line: number; column: number} {
  let line = 1
  let start = 0
  for (let i = 0; i < offset && i < text.length; i++)
    if (text.charCodeAt(i) === 10) {
      line++
      start = i + 1
    }
  return {line, column: offset - start + 1}
}

/** The refusal of a file kb cannot read or change safely: exit 2, nothing written. */
export function unreadable(file: string, where: {line: number; column: number} | null, why: string): KbError {
  const at = where ? `${file}:${where.line}:${where.column}` : file
  return new KbError('usage', `${at}: ${why}; fix the file (or move it aside) and run the command again — nothing was written`)
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false
  if (Array.isArray(a) !== Array.isArray(b)) return false
  const ka = Object.keys(a)
  const kb = Object.keys(b)
  if (ka.length !== kb.length) return false
  return ka.every((k) => Object.hasOwn(b, k) && deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
}

export const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** Whether an existing entry already says what kb would write (keys kb does not manage are not compared). */
export function managedEqual(current: unknown, entry: Record<string, unknown>): boolean {
  if (!isPlainObject(current)) return false
  return MANAGED_KEYS.every((k) => deepEqual(current[k], entry[k]))
}
