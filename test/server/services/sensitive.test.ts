/**
 * What safe publish reports and records (server/services/sensitive.ts): reports that never carry a secret,
 * stable ids, redaction that leaves nothing to find, and acknowledgement records that are themselves clean
 * and fit the comment limit.
 */
import {describe, expect, it} from 'vitest'
import {COMMENT_MAX} from '../../../src/shared/contract.js'
import {KINDS, scanText} from '../../../server/scan/scanner.js'
import {
  ACKNOWLEDGEMENT_HEAD,
  acknowledgementNotes,
  fieldsOf,
  type Hit,
  redactFields,
  report,
  scanFields,
} from '../../../server/services/sensitive.js'
import {fakeCorpus} from '../scan/fake-corpus.js'

const corpus = fakeCorpus(7)
const someone = {id: 'x', name: 'x'}
const AT = '2026-01-01T00:00:00.000Z'

/** An entry holding the whole corpus: each sample in the body, one in a tag, in a thought, a comment and the resolution note. */
function leaky(): Parameters<typeof fieldsOf>[0] {
  const npm = corpus.find((s) => s.kind === 'npm-access-token')!.secret
  return {
    title: `Leak of ${corpus.find((s) => s.kind === 'email')!.secret}`,
    body: corpus.map((s) => `Seen: ${s.text}`).join('\n'),
    url: `https://ci.acme-corp.io/x?token=${corpus.find((s) => s.kind === 'github-pat')!.secret}`,
    tags: ['ok', npm],
    thought_chain: [{step: 1, thought: corpus.find((s) => s.kind === 'jwt')!.text, kind: 'observation'}],
    resolution: {note: corpus.find((s) => s.kind === 'kb-api-key')!.text, url: null, resolved_by: someone, resolved_at: AT},
    comments: [
      {
        id: '0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7980',
        body: corpus.find((s) => s.kind === 'phone')!.text,
        type: 'note',
        author: someone,
        created_at: AT,
      },
    ],
  }
}

describe('reports', () => {
  it('carry no secret: excerpts and diff lines mask every finding', async () => {
    const fields = fieldsOf(leaky())
    const hits = await scanFields(fields)
    expect(hits.length).toBe(corpus.length + 6)
    const json = JSON.stringify(report(fields, hits))
    for (const s of corpus) expect(json.includes(s.secret), s.kind).toBe(false)
    for (const h of hits) expect(h.excerpt).toContain(`${h.secret.slice(0, Math.min(4, Math.floor(h.secret.length / 4)))}…`)
  })

  it('ids are stable for the same text and change with it', async () => {
    const a = await scanFields(fieldsOf(leaky()))
    const b = await scanFields(fieldsOf(leaky()))
    expect(b.map((h) => h.id)).toEqual(a.map((h) => h.id))
    expect(new Set(a.map((h) => h.id)).size).toBe(a.length)
    const moved = await scanFields(fieldsOf({...leaky(), body: `One more line.\n${leaky().body}`}))
    expect(moved.filter((h) => h.field === 'body').map((h) => h.id)).not.toEqual(a.filter((h) => h.field === 'body').map((h) => h.id))
  })

  it('redaction leaves nothing to find, drops a tag, keeps a URL valid', async () => {
    const fields = fieldsOf(leaky())
    const hits = await scanFields(fields)
    const redacted = redactFields(fields, hits)
    expect(redacted.get('tags/1')).toBeNull()
    expect(redacted.has('tags/0')).toBe(false)
    expect(new URL(redacted.get('url')!).hostname).toBe('ci.acme-corp.io')
    for (const [field, value] of redacted) if (value !== null) expect(scanText(value), field).toEqual([])
  })
})

describe('acknowledgement records', () => {
  const hit = (i: number, kind: string, field: string): Hit => ({
    id: i.toString(16).padStart(16, '0'),
    field,
    kind,
    ...KINDS[kind]!,
    start: 0,
    end: 1,
    line: i + 1,
    column: 1,
    excerpt: 'x…',
    secret: 'x',
  })
  const FIELDS = [
    'title',
    'body',
    'url',
    'tags/3',
    'thought_chain/99/thought',
    'resolution/note',
    'comments/0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7980/body',
  ]

  it('name every finding and are clean to publish themselves, for every kind in every field', () => {
    const hits = Object.keys(KINDS).flatMap((kind, k) => FIELDS.map((field, f) => hit(k * FIELDS.length + f, kind, field)))
    const notes = acknowledgementNotes(hits, 'publishing to global')
    const all = notes.join('\n')
    for (const h of hits) expect(all).toContain(`- ${h.id} ${h.label} in ${h.field}, line ${h.line}`)
    for (const n of notes) expect(scanText(n), n.slice(0, 200)).toEqual([])
  })

  it('are split so none is over the comment limit, each recognisable as a record', () => {
    const hits = Array.from({length: 1000}, (_, i) => hit(i, 'generic-api-key', 'comments/0193a7e2-5c1e-7b3a-9f1e-2d4c5b6a7980/body'))
    const notes = acknowledgementNotes(hits, 'publishing to global')
    expect(notes.length).toBeGreaterThan(1)
    for (const n of notes) {
      expect(n.length).toBeLessThanOrEqual(COMMENT_MAX)
      expect(n.startsWith(ACKNOWLEDGEMENT_HEAD)).toBe(true)
    }
    expect(notes.join('\n').match(/^- [0-9a-f]{16} /gm)).toHaveLength(1000)
    expect(acknowledgementNotes([], 'x')).toEqual([])
  })
})

describe('a text dense with findings', () => {
  it('is reported without holding the event loop: the scan yields between findings, the diff reads only what it shows', async () => {
    const body = 'a@b.co '.repeat(14_286).slice(0, 100_000)
    const fields = [{field: 'body', text: body}]
    let turns = 0
    let ticking = true
    const tick = (): void => {
      turns++
      if (ticking) setImmediate(tick)
    }
    setImmediate(tick)
    const hits = await scanFields(fields)
    ticking = false
    expect(hits.length).toBe(scanText(body).length)
    expect(hits.length).toBeGreaterThan(14_000)
    // Over 14,000 findings, some 1,000 per turn of the event loop (docs/security.md, "Linear time, whatever the text").
    expect(turns).toBeGreaterThanOrEqual(12)
    const r = report(fields, hits, hits)
    expect(r.diff).toHaveLength(1)
    expect(r.diff[0]!.before.length).toBeLessThanOrEqual(400)
    expect(r.diff[0]!.after!.length).toBeLessThanOrEqual(400)
    expect(JSON.stringify(r)).not.toContain('a@b.co')
  })
})
