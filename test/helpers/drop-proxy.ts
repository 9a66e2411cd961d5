/**
 * @module A TCP proxy for the tests that need the network to fail at a chosen moment: in front of a daemon, it
 * passes everything, except that it can drop the answer to the next request of a method (the request reaches
 * the daemon and is done; its answer never reaches the client, as after a timeout), or cut the next request
 * of a method before it reaches the daemon.
 */
import {connect, createServer, type Socket} from 'node:net'

export interface DropProxy {
  port: number
  /** Base URL through the proxy, ending in /api/v1. */
  url: string
  /** The next request whose method is `method` is done by the daemon, but its answer is cut off. */
  dropNextAnswer(method: string): void
  /** The next request whose method is `method` is cut off before it reaches the daemon. */
  cutNextRequest(method: string): void
  /** How many answers were dropped and requests cut so far. */
  readonly dropped: number
  readonly cut: number
  close(): Promise<void>
}

export async function startDropProxy(targetPort: number): Promise<DropProxy> {
  const state = {drop: null as string | null, cut: null as string | null, dropped: 0, cutCount: 0}
  const sockets = new Set<Socket>()
  const server = createServer((client) => {
    sockets.add(client)
    client.on('close', () => sockets.delete(client))
    const upstream = connect(targetPort, '127.0.0.1')
    sockets.add(upstream)
    upstream.on('close', () => sockets.delete(upstream))
    // No pipelining over node's agent: the first client bytes after any answer bytes start the next request.
    let requestStarts = true
    let dropAnswer = false
    const kill = (): void => {
      client.destroy()
      upstream.destroy()
    }
    client.on('error', kill)
    upstream.on('error', kill)
    // A request's first bytes are its method.
    client.on('data', (chunk: Buffer) => {
      if (requestStarts) {
        requestStarts = false
        const head = chunk.toString('latin1', 0, 10)
        if (state.cut && head.startsWith(`${state.cut} `)) {
          state.cut = null
          state.cutCount++
          return kill()
        }
        if (state.drop && head.startsWith(`${state.drop} `)) {
          state.drop = null
          dropAnswer = true
        }
      }
      upstream.write(chunk)
    })
    upstream.on('data', (chunk: Buffer) => {
      requestStarts = true
      if (!dropAnswer) return void client.write(chunk)
      // The daemon has answered, so the request is done; the client never hears of it.
      state.dropped++
      kill()
    })
    client.on('end', () => upstream.end())
    upstream.on('end', () => client.end())
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  return {
    port,
    url: `http://127.0.0.1:${port}/api/v1`,
    dropNextAnswer: (method) => void (state.drop = method),
    cutNextRequest: (method) => void (state.cut = method),
    get dropped() {
      return state.dropped
    },
    get cut() {
      return state.cutCount
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy()
        server.close(() => resolve())
      }),
  }
}
