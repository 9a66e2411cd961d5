/** The part of autocannon 8's API the benchmarks use (the package ships no types). */
declare module 'autocannon' {
  interface Request {
    method?: string
    path?: string
    headers?: Record<string, string>
    setupRequest?: (req: Request) => Request
  }
  interface Options {
    url: string
    connections?: number
    pipelining?: number
    duration?: number
    headers?: Record<string, string>
    requests?: Request[]
  }
  interface Histogram {
    average: number
    mean: number
    p50: number
    p99: number
  }
  interface Result {
    requests: Histogram & {total: number}
    latency: Histogram
    throughput: Histogram
    errors: number
    timeouts: number
    non2xx: number
  }
  function autocannon(options: Options): Promise<Result>
  export default autocannon
}
