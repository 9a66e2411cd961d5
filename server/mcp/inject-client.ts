/**
 * @module The API client the daemon's MCP tools use: the CLI's `ApiClient`, but each request goes
 * through the app in process (`fastify.inject`) with the MCP caller's own Authorization and Host, so
 * a tool call meets exactly the validation, authentication and permission rules of the REST API.
 */
import type {IncomingHttpHeaders} from 'node:http'
import type {FastifyInstance} from 'fastify'
import {ApiClient, problemToError, type ApiResponse, type RequestInit} from '../../src/client/client.js'

export class InjectClient extends ApiClient {
  constructor(
    private readonly app: FastifyInstance,
    private readonly prefix: string,
    private readonly forward: {authorization: string; host: string; requestId: string},
  ) {
    super({baseUrl: `http://${forward.host}${prefix}`, serverLabel: 'kb daemon'})
  }

  override async request<T>(method: string, path: string, init: RequestInit = {}): Promise<ApiResponse<T>> {
    const query: Record<string, string> = {}
    for (const [k, v] of Object.entries(init.query ?? {})) if (v !== undefined && v !== null) query[k] = String(v)
    const res = await this.app.inject({
      method: method as 'GET',
      url: this.prefix + path,
      query,
      headers: {
        ...init.headers,
        authorization: this.forward.authorization,
        host: this.forward.host,
        // One request id across the MCP request and the API calls it made, for the log.
        'x-request-id': this.forward.requestId,
        ...(init.body !== undefined ? {'content-type': 'application/json'} : {}),
      },
      ...(init.body !== undefined ? {payload: JSON.stringify(init.body)} : {}),
    })
    const headers = res.headers as IncomingHttpHeaders
    const type = String(headers['content-type'] ?? '')
    const body = res.body !== '' && type.includes('json') ? (JSON.parse(res.body) as unknown) : res.body
    if (res.statusCode >= 400) throw problemToError(res.statusCode, body, headers, `${method} ${path}`)
    return {status: res.statusCode, headers, body: body as T}
  }
}
