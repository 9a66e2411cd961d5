/**
 * @module Identifiers, secrets and clocks of the server.
 */
import {createHash, randomBytes, timingSafeEqual} from 'node:crypto'

export {uuidv7} from '../../src/shared/uuidv7.js'

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'

/** `length` uniformly random base62 characters (rejection sampling, no modulo bias). */
export function randomBase62(length: number): string {
  let out = ''
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248) out += BASE62[byte % 62]
      if (out.length === length) break
    }
  }
  return out
}

export function sha256Hex(secret: string): string {
  return createHash('sha256').update(secret).digest('hex')
}

/** Current time as an RFC 3339 UTC string with milliseconds. */
export function nowIso(): string {
  return new Date().toISOString()
}

/** Whether two hashes are equal, compared in constant time so the comparison leaks nothing about them. */
export function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}
