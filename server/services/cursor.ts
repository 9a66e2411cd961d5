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

export function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify([c.at, c.id])).toString('base64url')
}

export function decodeCursor(s: string): Cursor {
  try {
    const v = JSON.parse(Buffer.from(s, 'base64url').toString('utf8')) as unknown
    if (Array.isArray(v) && v.length === 2 && typeof v[0] === 'string' && typeof v[1] === 'string') return {at: v[0], id: v[1]}
  } catch {
    // fall through to the error below
  }
  throw new KbError('bad_request', 'cursor is not one this server returned; start again without it', {
    errors: [{path: 'cursor', message: 'invalid cursor'}],
  })
}
