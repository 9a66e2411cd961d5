/**
 * @module Keyset cursors: an opaque position in a list ordered by a time and then the id (entries by
 * `updated_at`, comments by `created_at`).
 */
import {KbError} from '../../src/shared/errors.js'

/** A position in a list ordered by a time and then the id: `updated_at` for entries, `created_at` for comments. */
export interface Cursor {
  at: string
  id: string
}

const AT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
const ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

export function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify([c.at, c.id])).toString('base64url')
}

export function decodeCursor(s: string): Cursor {
  try {
    const v = JSON.parse(Buffer.from(s, 'base64url').toString('utf8')) as unknown
    // Only the shape this server writes: its own timestamp form and a lower-case UUID, encoded exactly as
    // encodeCursor does. A position of that shape reveals nothing (visibility applies to every page).
    if (Array.isArray(v) && v.length === 2 && typeof v[0] === 'string' && typeof v[1] === 'string' && AT.test(v[0]) && ID.test(v[1])) {
      const c = {at: v[0], id: v[1]}
      if (encodeCursor(c) === s) return c
    }
  } catch {
    // fall through to the error below
  }
  throw new KbError('bad_request', 'cursor is not one this server returned; start again without it', {
    errors: [{path: 'cursor', message: 'invalid cursor'}],
  })
}
