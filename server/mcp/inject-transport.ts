/**
 * @module The transport the daemon's MCP tools use: each API call goes through the app in process
 * (`fastify.inject`) with the MCP caller's own Authorization and Host, so a tool call meets exactly the
 * validation, authentication and permission rules of the REST API.
 */
import type {FastifyInstance} from 'fastify'
import {ApiClient, type Transport} from '../../src/shared/client.js'

export interface Forwarded {
  authorization: string
  host: string
  requestId: string
}

/** An `ApiClient` whose requests are answered by `app` itself on behalf of the MCP caller. */
export function injectClient(app: FastifyInstance, prefix: string, forward: Forwarded): ApiClient {
  const transport: Transport = {
    async send(r) {
      const res = await app.inject({
        method: r.method as 'GET',
        url: r.url.pathname + r.url.search,
        // One request id across the MCP request and the API calls it made, for the log.
        headers: {...r.headers, authorization: forward.authorization, host: forward.host, 'x-request-id': forward.requestId},
        ...(r.body !== undefined ? {payload: r.body} : {}),
      })
      return {status: res.statusCode, headers: res.headers, text: res.body}
    },
  }
  return new ApiClient({baseUrl: `http://${forward.host}${prefix}`, transport})
}
