/**
 * @module The discovery documents: authorization server metadata (RFC 8414) and protected resource
 * metadata (RFC 9728), for the API and for its MCP endpoint. Optional fields are left out, never null,
 * because the MCP SDK's schemas reject null.
 */

/** The resource indicator of the MCP endpoint, a protected resource of its own below the API's base. */
export function mcpResource(base: string): string {
  return `${base}/mcp`
}

/** The audiences a token of this server may carry: the API itself and its MCP endpoint. */
export function allowedResources(base: string): string[] {
  return [base, mcpResource(base)]
}

export function authorizationServerMetadata(base: string): Record<string, unknown> {
  return {
    issuer: base,
    authorization_endpoint: `${base}/oauth/authorize`,
    token_endpoint: `${base}/oauth/token`,
    registration_endpoint: `${base}/oauth/register`,
    revocation_endpoint: `${base}/oauth/revoke`,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
    revocation_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
    // RFC 9207: every authorization response carries `iss`, so clients can detect mix-up attacks.
    authorization_response_iss_parameter_supported: true,
  }
}

export function protectedResourceMetadata(base: string, resource: string = base): Record<string, unknown> {
  return {
    resource,
    authorization_servers: [base],
    bearer_methods_supported: ['header'],
    resource_name: resource === base ? 'kb knowledge API' : 'kb MCP server',
  }
}

/**
 * Where each document is served, relative to the host root, given the base URL's path (`/api/v1`):
 * under the base (the spec's), with RFC 8414/9728 path insertion, and at the bare root.
 */
export function wellKnownPaths(basePath: string): {
  authorizationServer: string[]
  protectedResource: string[]
  mcpProtectedResource: string[]
} {
  const p = basePath.replace(/\/+$/, '')
  return {
    authorizationServer: [
      `${p}/.well-known/oauth-authorization-server`,
      `/.well-known/oauth-authorization-server${p}`,
      '/.well-known/oauth-authorization-server',
    ],
    protectedResource: [
      `${p}/.well-known/oauth-protected-resource`,
      `/.well-known/oauth-protected-resource${p}`,
      '/.well-known/oauth-protected-resource',
    ],
    mcpProtectedResource: [`/.well-known/oauth-protected-resource${p}/mcp`, `${p}/mcp/.well-known/oauth-protected-resource`],
  }
}
