/**
 * @module Hostile requests (docs/performance.md, "Hostile input"): shapes of client input that stalled the
 * daemon for every other request — backtracking expressions over Markdown, byte-pair encoding of long
 * words, one synchronous import — and neighbours of them. Each shape sends one request at 100,000
 * characters (or 3,000 entries); some first store what it needs. Shared by bench/hostile.bench.ts and
 * test/server/hostile.test.ts.
 */
import {randomUUID} from 'node:crypto'
import {corpus, prng} from './corpus.js'

export interface Target {
  /** The API base URL, ending in /api/v1. */
  base: string
  key: string
}

export interface Answer {
  status: number
  text: string
}

export interface HostileShape {
  name: string
  /** What it sends: create, patch, search, mcp, import or other. */
  group: string
  /** The status that shows the request did what it is for. */
  expect: number
  /** Stores or builds what the request needs (not measured); its result goes to `send`. */
  prepare?: (t: Target) => Promise<unknown>
  send: (t: Target, prepared: unknown) => Promise<Answer>
}

export async function call(t: Target, method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<Answer> {
  const headers: Record<string, string> = {authorization: `Bearer ${t.key}`}
  if (body !== undefined) headers['content-type'] = contentType
  if (path.startsWith('/mcp')) Object.assign(headers, {accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18'})
  const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body)
  const res = await fetch(t.base + path, {method, headers, ...(payload === undefined ? {} : {body: payload})})
  return {status: res.status, text: await headOf(res)}
}

/** What of an answer is kept: enough for any JSON a shape reads (ids, a report), not a whole export. */
const KEPT_BYTES = 1024 * 1024

/**
 * The answer's first KEPT_BYTES as text, the rest read and dropped chunk by chunk. Decoding a 25 MB export
 * into one string held this process's event loop for tens of milliseconds, and the /health probe runs in this
 * process: that stall was counted against the daemon (docs/performance.md, "Hostile input").
 */
async function headOf(res: Response): Promise<string> {
  if (!res.body) return ''
  const kept: Uint8Array[] = []
  let bytes = 0
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    if (bytes < KEPT_BYTES) kept.push(chunk.subarray(0, KEPT_BYTES - bytes))
    bytes += chunk.length
  }
  return Buffer.concat(kept).toString('utf8')
}

const N = 100_000
const NDJSON = 'application/x-ndjson'
const letters = (n: number, seed: number): string => {
  const r = prng(seed)
  return Array.from({length: n}, () => String.fromCharCode(97 + Math.floor(r() * 26))).join('')
}
const words = (n: number, seed: number): string => {
  const r = prng(seed)
  const out: string[] = []
  for (let length = 0; length < n - 9; length += 9)
    out.push(Array.from({length: 8}, () => String.fromCharCode(97 + Math.floor(r() * 26))).join(''))
  return out.join(' ')
}

/** Entry bodies of 100,000 characters (the largest the API takes) that cost the summary code most. */
export const HOSTILE_BODIES: Record<string, string> = {
  '# a + 99,995 spaces + b': `# a${' '.repeat(N - 5)}b`,
  'spaces and tabs': `${' \t'.repeat(N / 2 - 1)}x`,
  '[ × 99,999': '['.repeat(N - 1),
  '![ × 49,999': '!['.repeat(N / 2 - 1),
  '[a]( × 25,000': '[a]('.repeat(N / 4),
  '<a × 49,999': '<a'.repeat(N / 2 - 1),
  '<http:// × 12,500': '<http://'.repeat(N / 8),
  '**a × 24,999': '**a '.repeat(N / 4 - 1),
  '__a × 24,999': ' __a'.repeat(N / 4 - 1),
  '*a × 33,333': '*a '.repeat(Math.floor(N / 3)),
  '_a × 33,333': ' _a'.repeat(Math.floor(N / 3)),
  '~~a × 24,999': '~~a '.repeat(N / 4 - 1),
  '` × 49,999': '` '.repeat(N / 2 - 1),
  '- - - … x': `${'- '.repeat(N / 2 - 1)}x`,
  '> > > … x': `${'> '.repeat(N / 2 - 1)}x`,
  '1. 1. 1. …': '1. '.repeat(Math.floor(N / 3)),
  'x × 100,000': 'x'.repeat(N),
  '100,000 random letters': letters(N, 1),
  'random 8-letter words': words(N, 2),
  'CJK × 100,000': '字文中日本語漢'.repeat(Math.ceil(N / 7)).slice(0, N),
  'emoji × 50,000': '😀🚀'.repeat(N / 4),
}

/** 100,000 characters of email addresses: every seventh character begins a finding. */
const DENSE = 'a@b.co '.repeat(14_286).slice(0, N)

const marker = (): string => `hostile${randomUUID().slice(0, 8)}`

async function created(t: Target, title: string, body: string): Promise<string> {
  const res = await call(t, 'POST', '/knowledge', {title, body, scope: 'private'})
  if (res.status !== 201) throw new Error(`POST /knowledge → ${res.status} ${res.text.slice(0, 200)}`)
  return (JSON.parse(res.text) as {id: string}).id
}

/** Three entries whose body is one 99,000-letter word each, found by one marker word. */
async function longWords(t: Target): Promise<string> {
  const m = marker()
  for (const c of ['a', 'b', 'c']) await created(t, `${m} long word ${c}`, c.repeat(99_000))
  return m
}

/** 20 entries of 100,000 characters of random words: a search that serves them at `full` is 2 MB. */
async function bigEntries(t: Target): Promise<string> {
  const m = marker()
  for (let i = 0; i < 20; i++) await created(t, `${m} big ${i}`, words(N, 100 + i))
  return m
}

/** Lorem ipsum of 100,000 characters: every word a candidate term for `q=lorem ipsum …`. */
const LOREM = 'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore '
const LOREM_BODY = LOREM.repeat(Math.ceil(N / LOREM.length)).slice(0, N)
const loremStores = new Map<string, Promise<string>>()

/**
 * 200 global entries of 100,000 characters of lorem ipsum (issue 24: a search over them held `/health`
 * 1.3–1.7 s), imported once per daemon in four imports of 50; every search shape below shares them.
 */
function loremEntries(t: Target): Promise<string> {
  let stored = loremStores.get(t.base)
  if (!stored) {
    stored = (async () => {
      for (let batch = 0; batch < 4; batch++) {
        const lines = [JSON.stringify({kind: 'kb-export', version: 1})]
        for (let i = 0; i < 50; i++)
          lines.push(JSON.stringify({kind: 'entry', id: randomUUID(), title: `lorem ${batch}.${i}`, body: LOREM_BODY, scope: 'global'}))
        const res = await call(t, 'POST', '/import', `${lines.join('\n')}\n`, NDJSON)
        if (res.status !== 200) throw new Error(`POST /import → ${res.status} ${res.text.slice(0, 200)}`)
      }
      return 'lorem'
    })()
    loremStores.set(t.base, stored)
  }
  return stored
}

const mcpCall = (t: Target, tool: string, args: object): Promise<Answer> =>
  call(t, 'POST', '/mcp', {jsonrpc: '2.0', id: 1, method: 'tools/call', params: {name: tool, arguments: args}})

/** An import body: a header line, then the entries. */
export function importBody(entries: Array<{title: string; body: string; tags?: string[]}>): string {
  const lines = [JSON.stringify({kind: 'kb-export', version: 1})]
  for (const e of entries) lines.push(JSON.stringify({kind: 'entry', id: randomUUID(), scope: 'private', ...e}))
  return `${lines.join('\n')}\n`
}

/** 3,000 entries of about 1 KB each, as kb's benchmark corpus writes them; `mark` starts every title. */
export function corpusImport(count = 3000, mark = '', seed = Date.now() % 1_000_000): string {
  const c = corpus(seed)
  return importBody(
    Array.from({length: count}, (_, i) => {
      const e = c.entry(i)
      return mark === '' ? e : {...e, title: `${mark} ${e.title}`.slice(0, 200)}
    }),
  )
}

/** Two seconds of probing with nothing else sent. */
function idle(name: string): HostileShape {
  const send = async (): Promise<Answer> => {
    await new Promise((resolve) => setTimeout(resolve, 2000))
    return {status: 200, text: ''}
  }
  return {name, group: 'baseline', expect: 200, send}
}

function searchShape(name: string, prepare: (t: Target) => Promise<string>, query: string): HostileShape {
  return {
    name: `search: ${name}`,
    group: 'search',
    expect: 200,
    prepare,
    send: (t, mark) => call(t, 'GET', `/search?q=${mark as string}${query}`),
  }
}

function mcpShape(name: string, prepare: ((t: Target) => Promise<string>) | null, args: (mark: string) => object): HostileShape {
  const [tool] = name.split(',')
  return {
    name: `mcp: ${name}`,
    group: 'mcp',
    expect: 200,
    ...(prepare ? {prepare} : {}),
    send: (t, mark) => mcpCall(t, tool!, args(mark as string)),
  }
}

function importShape(name: string, query: string, body: () => string): HostileShape {
  return {
    name: `import: ${name}`,
    group: 'import',
    expect: 200,
    prepare: async () => body(),
    send: (t, text) => call(t, 'POST', `/import${query}`, text, NDJSON),
  }
}

/**
 * Ordinary requests down every path the shapes take (create, patch, search with a budget, MCP, import,
 * export), so that a daemon's first requests — compiling code, loading the tokenizer's tables — are not
 * counted against a shape.
 */
export async function warmUp(t: Target): Promise<void> {
  const c = corpus(1)
  for (let i = 0; i < 20; i++) {
    const e = c.entry(i)
    const id = await created(t, e.title, `# ${e.title}\n\n**${e.body}** [link](https://example.com) \`code\`\n\n${e.body}`)
    await call(t, 'PATCH', `/knowledge/${id}`, {body: `${e.body} ${e.body}`})
    await call(t, 'GET', `/search?q=${encodeURIComponent(c.shortQuery(i))}&detail=full&max_tokens=2000`)
    await mcpCall(t, 'search_knowledge', {query: c.shortQuery(i), max_tokens: 500})
  }
  await call(t, 'POST', '/import', corpusImport(200), NDJSON)
  await call(t, 'GET', '/export')
}

export const HOSTILE_SHAPES: HostileShape[] = [
  // Not hostile: what the machine itself adds to a /health wait, and an ordinary request, for reference.
  idle('baseline: nothing sent for 2 s'),
  {
    name: 'baseline: an ordinary create (1 KB)',
    group: 'baseline',
    expect: 201,
    send: (t) => call(t, 'POST', '/knowledge', {...corpus(3).entry(0), scope: 'private'}),
  },
  ...Object.entries(HOSTILE_BODIES).map(([name, body]): HostileShape => ({
    name: `create: ${name}`,
    group: 'create',
    expect: 201,
    send: (t) => call(t, 'POST', '/knowledge', {title: 'hostile body', body, scope: 'private'}),
  })),
  ...['# a + 99,995 spaces + b', 'spaces and tabs', '**a × 24,999'].map((name): HostileShape => ({
    name: `patch: ${name}`,
    group: 'patch',
    expect: 200,
    prepare: (t) => created(t, 'to be patched', 'short'),
    send: (t, id) => call(t, 'PATCH', `/knowledge/${id as string}`, {body: HOSTILE_BODIES[name]}),
  })),
  {
    name: 'patch: 200-character one-word title',
    group: 'patch',
    expect: 200,
    prepare: (t) => created(t, 'to be patched', 'short'),
    send: (t, id) => call(t, 'PATCH', `/knowledge/${id as string}`, {title: letters(200, 3)}),
  },
  searchShape('3 × 99,000-letter word, max_tokens=10', longWords, '&detail=full&max_tokens=10'),
  searchShape('3 × 99,000-letter word, max_tokens=1,000,000', longWords, '&detail=full&max_tokens=1000000'),
  searchShape('20 × 100,000 characters, full, no budget', bigEntries, '&detail=full&limit=100'),
  searchShape('20 × 100,000 characters, max_tokens=1,000,000', bigEntries, '&detail=full&limit=100&max_tokens=1000000'),
  {
    name: 'search: 55 misspelt words',
    group: 'search',
    expect: 200,
    send: (t) => call(t, 'GET', `/search?q=${encodeURIComponent(words(500, 4))}`),
  },
  mcpShape('search_knowledge, 99,000-letter words, max_tokens=50', longWords, (m) => ({query: m, detail: 'full', max_tokens: 50})),
  mcpShape('search_knowledge, 20 × 100,000 characters, max_tokens=1,000,000', bigEntries, (m) => ({
    query: m,
    detail: 'full',
    limit: 100,
    max_tokens: 1e6,
  })),
  mcpShape('add_knowledge, # a + 99,995 spaces + b', null, () => ({title: 'hostile', body: HOSTILE_BODIES['# a + 99,995 spaces + b']})),
  importShape('3,000 entries', '', () => corpusImport()),
  importShape('3,000 entries, dry run', '?dry_run=true', () => corpusImport()),
  importShape(`${Object.keys(HOSTILE_BODIES).length} hostile bodies`, '', () =>
    importBody(Object.entries(HOSTILE_BODIES).map(([name, body]) => ({title: `hostile ${name}`, body}))),
  ),
  {
    name: 'comment: [ × 20,000',
    group: 'other',
    expect: 201,
    prepare: (t) => created(t, 'commented', 'short'),
    send: (t, id) => call(t, 'POST', `/knowledge/${id as string}/comments`, {body: '['.repeat(20_000)}),
  },
  // Safe publish (docs/security.md, "Linear time, whatever the text"): a body made of 14,285 findings.
  {
    name: 'publish-preview: a@b.co × 14,285',
    group: 'other',
    expect: 200,
    prepare: (t) => created(t, 'dense', DENSE),
    send: (t, id) => call(t, 'GET', `/knowledge/${id as string}/publish-preview?scope=global`),
  },
  {
    name: 'publish, redact: a@b.co × 14,285',
    group: 'other',
    expect: 200,
    prepare: (t) => created(t, 'dense', DENSE),
    send: (t, id) => call(t, 'POST', `/knowledge/${id as string}/publish`, {scope: 'global', redact: true}),
  },
  {
    name: 'body: [ × 1 MB (nesting refused before parsing)',
    group: 'other',
    expect: 400,
    send: (t) => call(t, 'POST', '/knowledge', '['.repeat(1024 * 1024 - 16)),
  },
  {
    name: 'projects/join: a. × 1,024',
    group: 'other',
    expect: 422,
    send: (t) => call(t, 'POST', '/projects/join', {remote: 'a.'.repeat(1024)}),
  },
  {name: 'export: everything so far', group: 'other', expect: 200, send: (t) => call(t, 'GET', '/export')},
  // Last, so that the 20 MB they store does not change what the shapes above measure (an export of everything).
  searchShape('q=lorem&limit=100 over 200 × 100,000 characters', loremEntries, '&limit=100'),
  searchShape('q=lorem ipsum dolor sit amet, limit=100, explain', loremEntries, '+ipsum+dolor+sit+amet&limit=100&explain=true'),
  mcpShape('search_knowledge, lorem, limit=100 over 200 × 100,000 characters', loremEntries, (m) => ({query: m, limit: 100})),
  {
    name: 'mcp: a batch of 5 search_knowledge over 200 × 100,000 characters',
    group: 'mcp',
    expect: 200,
    prepare: loremEntries,
    send: (t, m) =>
      call(
        t,
        'POST',
        '/mcp',
        [1, 2, 3, 4, 5].map((id) => ({
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: {name: 'search_knowledge', arguments: {query: `${m as string} ipsum dolor`, limit: 100}},
        })),
      ),
  },
  idle('baseline: nothing sent for 2 s, at the end'),
]
