/**
 * @module The OAuth 2.1 endpoints as OpenAPI path items. They are served in their own fastify scope
 * (form bodies, OAuth's error shape) rather than through the route table, so they are described here;
 * `test/server/openapi.test.ts` checks that each one is really served.
 */

const oauthError = {
  description: 'OAuth error',
  content: {
    'application/json': {
      schema: {type: 'object', required: ['error'], properties: {error: {type: 'string'}, error_description: {type: 'string'}}},
    },
  },
}
const form = (properties: Record<string, unknown>, required: string[]): Record<string, unknown> => ({
  required: true,
  content: {'application/x-www-form-urlencoded': {schema: {type: 'object', properties, required}}},
})
const str = {type: 'string'}
const metadataDoc = (summary: string, operationId: string): Record<string, unknown> => ({
  get: {
    operationId,
    summary,
    tags: ['oauth'],
    security: [],
    responses: {200: {description: 'The metadata document', content: {'application/json': {schema: {type: 'object'}}}}},
  },
})

/** Path items keyed by path below the API prefix (the document's server URL). */
export function oauthOpenApiPaths(): Record<string, Record<string, unknown>> {
  return {
    '/.well-known/oauth-protected-resource': metadataDoc(
      'Protected resource metadata (RFC 9728); also served at /.well-known/oauth-protected-resource/api/v1 and the root',
      'oauthProtectedResourceMetadata',
    ),
    '/.well-known/oauth-authorization-server': metadataDoc(
      'Authorization server metadata (RFC 8414); also served at /.well-known/oauth-authorization-server/api/v1 and the root',
      'oauthAuthorizationServerMetadata',
    ),
    '/oauth/register': {
      post: {
        operationId: 'oauthRegister',
        summary: 'Dynamic client registration (RFC 7591)',
        tags: ['oauth'],
        security: [],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['redirect_uris'],
                properties: {
                  redirect_uris: {type: 'array', items: str},
                  client_name: str,
                  token_endpoint_auth_method: {enum: ['none', 'client_secret_basic', 'client_secret_post']},
                  grant_types: {type: 'array', items: str},
                  response_types: {type: 'array', items: str},
                },
              },
            },
          },
        },
        responses: {
          201: {description: 'The registered client, every field echoed', content: {'application/json': {schema: {type: 'object'}}}},
          400: oauthError,
          429: oauthError,
        },
      },
    },
    '/oauth/authorize': {
      get: {
        operationId: 'oauthAuthorize',
        summary: 'Authorization endpoint: the HTML consent page (code flow with PKCE S256)',
        tags: ['oauth'],
        security: [],
        parameters: [
          'response_type',
          'client_id',
          'redirect_uri',
          'code_challenge',
          'code_challenge_method',
          'state',
          'scope',
          'resource',
        ].map((name) => ({name, in: 'query', required: ['response_type', 'client_id', 'code_challenge'].includes(name), schema: str})),
        responses: {
          200: {description: 'The consent page', content: {'text/html': {schema: str}}},
          302: {description: 'Back to the client with an error'},
          400: {description: 'An HTML error page (unknown client or redirect URI)', content: {'text/html': {schema: str}}},
        },
      },
      post: {
        operationId: 'oauthAuthorizeDecision',
        summary: 'The consent form: approve or deny with an API key (CSRF-protected)',
        tags: ['oauth'],
        security: [],
        requestBody: form({request_id: str, csrf_token: str, api_key: str, decision: {enum: ['approve', 'deny']}}, [
          'request_id',
          'csrf_token',
          'decision',
        ]),
        responses: {
          302: {description: 'Back to the client with a code or an error'},
          200: {description: 'The page again, with an error', content: {'text/html': {schema: str}}},
          400: {description: 'An HTML error page', content: {'text/html': {schema: str}}},
        },
      },
    },
    '/oauth/token': {
      post: {
        operationId: 'oauthToken',
        summary: 'Token endpoint: authorization_code (PKCE) and refresh_token (rotated)',
        tags: ['oauth'],
        security: [],
        requestBody: form(
          {
            grant_type: {enum: ['authorization_code', 'refresh_token']},
            code: str,
            redirect_uri: str,
            code_verifier: str,
            refresh_token: str,
            client_id: str,
            client_secret: str,
            resource: str,
          },
          ['grant_type'],
        ),
        responses: {
          200: {
            description: 'Tokens',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  properties: {access_token: str, token_type: str, expires_in: {type: 'integer'}, refresh_token: str, scope: str},
                },
              },
            },
          },
          400: oauthError,
          401: oauthError,
        },
      },
    },
    '/oauth/revoke': {
      post: {
        operationId: 'oauthRevoke',
        summary: 'Token revocation (RFC 7009)',
        tags: ['oauth'],
        security: [],
        requestBody: form({token: str, token_type_hint: str, client_id: str, client_secret: str}, ['token']),
        responses: {200: {description: 'Revoked (or unknown: the answer is the same)'}, 400: oauthError, 401: oauthError},
      },
    },
  }
}
