/**
 * @module Pieces the route modules share: error response docs and header parsing.
 */
import {ERROR_CODES} from '../../src/shared/errors.js'
import type {ResponseDoc} from '../http/route.js'

/** OpenAPI response entries for the listed error statuses, all problem+json. */
export function errorResponses(...statuses: number[]): Record<number, ResponseDoc> {
  const out: Record<number, ResponseDoc> = {}
  for (const status of statuses) {
    const codes = Object.entries(ERROR_CODES).filter(([, v]) => v.status === status).map(([k]) => k)
    out[status] = {description: `Problem (code: ${codes.join(', ')})`, schema: 'Problem', contentType: 'application/problem+json'}
  }
  return out
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
