/**
 * @module Resource indicators (RFC 8707): the audience a token is issued for — the API or its MCP endpoint —
 * as an authorization request names it and as a token request may narrow it (docs/oauth.md).
 */
import {trimTrailingSlashes} from '../../src/shared/chars.js'
import {allowedResources} from './metadata.js'

/** The resource a request asked for, normalised, if it is one of ours; `base` when none was asked for. */
export function resolveResource(requested: string | null, base: string): string | null {
  if (requested === null || requested === '') return base
  const r = trimTrailingSlashes(requested)
  return allowedResources(base).includes(r) ? r : null
}

/**
 * The audience for tokens of a grant bound to `granted`: that one unless the request names the other
 * resource of the same server (a token for the API or its MCP endpoint works on both anyway).
 */
export function grantResource(requested: string | null, granted: string): string | null {
  return requested === null || requested === '' ? granted : resolveResource(requested, resourceBase(granted))
}

/** The API base a resource belongs to (`{base}/mcp` → `{base}`). */
export function resourceBase(resource: string): string {
  return resource.endsWith('/mcp') ? resource.slice(0, -'/mcp'.length) : resource
}
