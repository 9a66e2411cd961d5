/**
 * @module Identifiers, secrets and clocks of the server.
 */
import {createHash, randomBytes, timingSafeEqual} from 'node:crypto'

/** A UUID v7: time-ordered, so new rows land at the end of B-tree indexes. */
export function uuidv7(now: number = Date.now()): string {
  const bytes = randomBytes(16)
  const ms = BigInt(now)
  for (let i = 0; i < 6; i++) bytes[i] = Number((ms >> BigInt(8 * (5 - i))) & 0xffn)
  bytes[6] = (bytes[6]! & 0x0f) | 0x70
  bytes[8] = (bytes[8]! & 0x3f) | 0x80
  const hex = bytes.toString('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

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
