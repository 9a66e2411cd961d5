/**
 * @module A deterministic synthetic corpus of developer-style entries for benchmarks. Words follow one
 * Zipf law (frequency ∝ 1/rank, as in English text) over common words — function words first, then
 * developer vocabulary — and a long tail of identifier-like words, so that term statistics at 100k
 * entries resemble a real knowledge base: "the" in nearly every entry, "error" in about half, most
 * words rare.
 */

/** mulberry32: a small seeded PRNG, so every run builds the same corpus. */
export function prng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

// Ordered roughly by how common they are in bug reports and notes; the Zipf draw follows this order.
const COMMON = (
  'the to a is in and of it on for that when with error this not be from as an are at by fails after test ' +
  'build run using if but or have was can do file on we no start server config node npm package version ' +
  'module missing update fix crash port timeout cache request response api client database query index ' +
  'type undefined null function call return import export async await promise callback event handler ' +
  'connection refused reset socket http https proxy certificate ssl tls dns host address network local ' +
  'docker container image volume mount permission denied path directory exists found cannot read write ' +
  'memory leak heap stack overflow thread process signal kill exit code status log output warning debug ' +
  'install dependency lock conflict merge branch commit push pull rebase git remote origin main release ' +
  'deploy production staging environment variable secret key token auth login session cookie header ' +
  'json yaml parse schema validation invalid unexpected syntax compile typescript javascript python rust ' +
  'slow performance latency throughput retry backoff queue worker job schedule cron migration table column ' +
  'row transaction deadlock lock timeout pool limit size large small empty first last new old default option ' +
  'flag argument command line terminal shell script windows linux macos ci pipeline cache artifact upload ' +
  'download mirror registry publish tag route middleware plugin hook test mock fixture snapshot flaky ' +
  'assert expect coverage lint format rule warning deprecated upgrade downgrade breaking change workaround ' +
  'root cause because instead should would could must need works again after restart reboot clean rebuild'
).split(' ')

const SYLLABLES = 'ka lo mi ne ru ta vo shi zen pa qu ex or am bi tor lex ion ser vix dat mon cli ent pro xy'.split(' ')

/** A pseudo-identifier such as `kalomi` or `serdat2`: the long tail of names real entries are full of. */
function tailWord(rank: number): string {
  let n = rank
  let w = ''
  do {
    w += SYLLABLES[n % SYLLABLES.length]
    n = Math.floor(n / SYLLABLES.length)
  } while (n > 0)
  return rank % 7 === 0 ? `${w}${rank % 10}` : w
}

/** Draws ranks 0..n-1 with probability ∝ 1/(rank+1)^s, by inverting the cumulative distribution. */
function zipf(n: number, s: number, random: () => number): () => number {
  const cdf = new Float64Array(n)
  let sum = 0
  for (let i = 0; i < n; i++) {
    sum += 1 / (i + 1) ** s
    cdf[i] = sum
  }
  return () => {
    const x = random() * sum
    let lo = 0
    let hi = n - 1
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (cdf[mid]! < x) lo = mid + 1
      else hi = mid
    }
    return lo
  }
}

export interface SyntheticEntry {
  title: string
  body: string
  tags: string[]
}

export interface Corpus {
  entry(i: number): SyntheticEntry
  /** A short query like a developer types: 2–4 words taken from some entry's title. */
  shortQuery(i: number): string
}

const TAIL_SIZE = 200_000

/** The corpus for a seed; entry(i) and shortQuery(i) are pure functions of (seed, i). */
export function corpus(seed = 42): Corpus {
  // The Zipf table costs a few milliseconds to build, so every entry shares it and only swaps the
  // random source it draws from (each entry has its own, seeded by its index).
  let random = prng(seed)
  const draw = zipf(COMMON.length + TAIL_SIZE, 1.0, () => random())
  const pick = (): string => {
    const rank = draw()
    return rank < COMMON.length ? COMMON[rank]! : tailWord(rank - COMMON.length)
  }
  const words = (r: () => number, count: number): string[] => {
    random = r
    return Array.from({length: count}, pick)
  }
  return {
    entry(i: number): SyntheticEntry {
      const r = prng(seed * 1_000_003 + i)
      const title = words(r, 4 + Math.floor(r() * 8)).join(' ')
      const sentences = 3 + Math.floor(r() * 18)
      const body = Array.from({length: sentences}, () => {
        const s = words(r, 6 + Math.floor(r() * 14)).join(' ')
        return `${s[0]!.toUpperCase()}${s.slice(1)}.`
      }).join(' ')
      const tags = [...new Set(words(r, Math.floor(r() * 6)).filter((w) => w.length >= 4))]
      return {title: title.slice(0, 200), body, tags}
    },
    shortQuery(i: number): string {
      const r = prng(seed * 7_919 + i)
      const title = this.entry(Math.floor(r() * 1_000)).title.split(' ')
      const n = Math.min(title.length, 2 + Math.floor(r() * 3))
      const start = Math.floor(r() * (title.length - n + 1))
      return title.slice(start, start + n).join(' ')
    },
  }
}
