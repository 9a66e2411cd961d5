/**
 * @module Pieces the route modules share: error response docs and header parsing.
 */
import {ERROR_CODES} from '../../src/shared/errors.js'
import type {ResponseDoc} from '../http/route.js'

/** OpenAPI response entries for the listed error statuses, all problem+json. */
export function errorResponses(...statuses: number[]): Record<number, ResponseDoc> {
  const out: Record<number, ResponseDoc> = {}
  for (const status of statuses) out[status] = problemResponse(problemCodes(status))
  return out
}

/** The codes a problem of this status may carry; the Idempotency-Key ones only where that header is honoured (server/openapi.ts). */
export function problemCodes(status: number, idempotent = false): string[] {
  return Object.entries(ERROR_CODES)
    .filter(([k, v]) => v.status === status && (idempotent || !k.startsWith('idempotency_')))
    .map(([k]) => k)
}

/** One problem+json response entry naming its codes. */
export function problemResponse(codes: string[]): ResponseDoc {
  return {description: `Problem (code: ${codes.join(', ')})`, schema: 'Problem', contentType: 'application/problem+json'}
}

/**
 * The versions an `If-Match` header accepts, or null when there is none or it is `*` (any current
 * version). Entity tags that are not our versions match nothing, so they fail with 412.
 */
export function parseIfMatch(header: string | string[] | undefined): number[] | null {
  if (header === undefined) return null
  const value = Array.isArray(header) ? header.join(',') : header
  if (value.trim() === '*') return null
  const versions: number[] = []
  for (const part of value.split(',')) {
    const m = /^\s*(?:W\/)?"?(\d{1,15})"?\s*$/.exec(part)
    if (m) versions.push(Number(m[1]))
  }
  return versions
}
