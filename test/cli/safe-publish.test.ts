/**
 * Safe publish through the built `kb` (docs/cli.md, "Safe publish"): `kb publish`, `kb add --scope
 * project|global`, and `kb comment` / `kb resolve` on a shared entry list the findings and the redaction diff; piped they fail with exit 5 naming --redact and
 * --acknowledge; on a terminal (util-linux `script`) they ask, and redact, keep (recorded) or stop as told.
 */
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {ChildDaemon} from '../helpers/daemon.js'
import {fakeCorpus} from '../server/scan/fake-corpus.js'
import {ANSI_RE, cleanup, kb, kbTty, type KbEnv, userWithDaemon} from './helpers.js'
import {shortId} from '../../src/shared/short-id.js'

const corpus = fakeCorpus(2026)
const line = (kind: string): string => corpus.find((s) => s.kind === kind)!.text
const secret = (kind: string): string => corpus.find((s) => s.kind === kind)!.secret
const BODY = `The deploy job printed\n${line('aws-access-token')}\nand then ${line('email')}.`

let d: ChildDaemon
let user: KbEnv

beforeAll(async () => {
  ;({user, d} = await userWithDaemon({TERM: 'xterm'}))
})
afterAll(async () => {
  await d?.stop()
  if (user) await cleanup(user)
})

/** A private entry holding an AWS key and an email address. */
async function leaky(): Promise<string> {
  const r = await d.request('POST', '/knowledge', {body: {title: 'Deploy leak', body: BODY, scope: 'private'}})
  expect(r.status).toBe(201)
  return r.body.id
}

const scopeOf = async (id: string): Promise<string> => (await d.request('GET', `/knowledge/${id}`)).body.scope

function expectNoSecret(text: string): void {
  for (const kind of ['aws-access-token', 'email']) expect(text).not.toContain(secret(kind))
}

describe('kb publish, piped', () => {
  it('fails with exit 5, listing the findings and the diff, and naming both ways out', async () => {
    const id = await leaky()
    const r = await kb(user, ['publish', id, '--scope', 'global'])
    expect(r.code, r.stderr).toBe(5)
    expect(r.stdout).toBe('')
    expect(r.stderr).toMatch(/2 findings of secrets or personal data:/)
    expect(r.stderr).toMatch(/AWS access key\s+body, line 2\s+aws_access_key_id = AKIA…/)
    expect(r.stderr).toMatch(/email address\s+body, line 3/)
    expect(r.stderr).toContain('+ aws_access_key_id = [REDACTED:aws-access-token]')
    const ids = [...r.stderr.matchAll(/^ {2}([0-9a-f]{16}) /gm)].map((m) => m[1])
    expect(ids).toHaveLength(2)
    expect(r.stderr).toContain(
      `re-run with --redact to replace them with [REDACTED:<kind>], or --acknowledge ${ids.join(',')} to keep them`,
    )
    expectNoSecret(r.stderr)
    expect(await scopeOf(id)).toBe('private')
  })

  it('--json: the refusal carries the findings for scripts', async () => {
    const id = await leaky()
    const r = await kb(user, ['publish', id, '--json'])
    expect(r.code).toBe(5)
    const err = JSON.parse(r.stdout).error
    expect(err).toMatchObject({code: 'sensitive_content', exit: 5, status: 409, findings_total: 2})
    expect(err.findings.map((f: {kind: string}) => f.kind)).toEqual(['aws-access-token', 'email'])
    expect(r.stderr).not.toMatch(/findings of secrets/)
    expectNoSecret(r.stdout)
  })

  it('--preview shows what would go and changes nothing; --redact publishes the redacted text', async () => {
    const id = await leaky()
    const p = await kb(user, ['publish', id, '--preview', '--scope', 'global'])
    expect(p.code, p.stderr).toBe(0)
    expect(p.stdout).toMatch(/^Publishing to global:\n2 findings/)
    expect(p.stdout).toContain('- aws_access_key_id = AKIA…')
    expectNoSecret(p.stdout)
    expect(await scopeOf(id)).toBe('private')
    const r = await kb(user, ['publish', id, '--redact', '--scope', 'global'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toBe(`${id}\tglobal\n`)
    const shown = await kb(user, ['show', id])
    expect(shown.stdout).toContain('aws_access_key_id = [REDACTED:aws-access-token]')
    expect(shown.stdout).toContain('[REDACTED:email]')
  })

  it('--acknowledge <ids> publishes as written and the record names them; a malformed id is a usage error', async () => {
    const id = await leaky()
    const refused = await kb(user, ['publish', id])
    const ids = [...refused.stderr.matchAll(/^ {2}([0-9a-f]{16}) /gm)].map((m) => m[1]!)
    expect((await kb(user, ['publish', id, '--acknowledge', 'nope'])).code).toBe(2)
    const r = await kb(user, ['publish', id, '--acknowledge', ids[0]!, '--acknowledge', ids[1]!])
    expect(r.code, r.stderr).toBe(0)
    const e = (await d.request('GET', `/knowledge/${id}`, {query: {detail: 'full'}})).body
    expect(e.body).toBe(BODY)
    expect(e.comments[0].body).toContain(ids[0])
    expect(e.comments[0].body).toContain(ids[1])
  })
})

describe('kb add into a shared scope', () => {
  it('piped: exit 5 and nothing stored; --redact stores the redacted entry; private is not scanned', async () => {
    const before = (await d.request('GET', '/knowledge', {query: {limit: 100}})).body.items.length
    const r = await kb(user, ['add', 'Key in the log', '--body', BODY, '--scope', 'global'])
    expect(r.code).toBe(5)
    expect(r.stderr).toContain('adding this entry to a shared scope would expose 2 secrets or pieces of personal data')
    expect((await d.request('GET', '/knowledge', {query: {limit: 100}})).body.items.length).toBe(before)
    const red = await kb(user, ['add', 'Key in the log', '--body', BODY, '--scope', 'global', '--redact'])
    expect(red.code, red.stderr).toBe(0)
    const e = (await d.request('GET', `/knowledge/${red.stdout.trim()}`)).body
    expect(e).toMatchObject({scope: 'global', title: 'Key in the log'})
    expect(e.body).toContain('[REDACTED:aws-access-token]')
    const mine = await kb(user, ['add', 'Key in the log', '--body', BODY, '--scope', 'private'])
    expect(mine.code, mine.stderr).toBe(0)
  })
})

describe('kb comment and kb resolve on a shared entry', () => {
  it('piped: exit 5 and nothing stored; --redact and --acknowledge go on', async () => {
    const id = (await d.request('POST', '/knowledge', {body: {title: 'Ours', body: 'Clean.', scope: 'global'}})).body.id
    const r = await kb(user, ['comment', id, `Seen: ${line('aws-access-token')}`])
    expect(r.code, r.stderr).toBe(5)
    expect(r.stderr).toMatch(/1 finding of secrets or personal data:/)
    expect(r.stderr).toContain(`commenting on ${shortId(id)} would expose a secret or personal data; re-run with --redact`)
    expectNoSecret(r.stderr)
    expect((await d.request('GET', `/knowledge/${id}`)).body.comment_count).toBe(0)
    const c = await kb(user, ['comment', id, `Seen: ${line('aws-access-token')}`, '--redact'])
    expect(c.code, c.stderr).toBe(0)
    const note = `Mailed ${line('email')}`
    const refused = await kb(user, ['resolve', id, '--note', note])
    expect(refused.code, refused.stderr).toBe(5)
    expect(refused.stderr).toMatch(/email address\s+resolution\/note, line 1/)
    const ids = [...refused.stderr.matchAll(/^ {2}([0-9a-f]{16}) /gm)].map((m) => m[1]!)
    const ok = await kb(user, ['resolve', id, '--note', note, '--acknowledge', ids.join(',')])
    expect(ok.code, ok.stderr).toBe(0)
    const e = (await d.request('GET', `/knowledge/${id}`, {query: {detail: 'full'}})).body
    expect(e.comments[0].body).toContain('[REDACTED:aws-access-token]')
    expect(e.resolution.note).toBe(note)
    expect(e.comments[1].body).toContain(ids[0])
  })
})

describe('kb import into a shared scope', () => {
  it('rejects an entry with findings (exit 1) and imports it with --redact or --acknowledge', async () => {
    const file = join(user.root, 'leak.jsonl')
    const entry = (id: string): string => JSON.stringify({kind: 'entry', id, title: 'Imported leak', body: BODY, scope: 'global'})
    writeFileSync(file, `${JSON.stringify({kind: 'kb-export', version: 1})}\n${entry('01930000-0000-7000-8000-00000000c001')}\n`)
    const r = await kb(user, ['import', file])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/line 2: sensitive content for global scope: AWS access key in body, line 2/)
    expect(r.stderr).toContain('kb import --redact')
    expectNoSecret(r.stderr)
    const ids = /acknowledge=([0-9a-f,]+)/.exec(r.stderr)![1]!
    const acked = await kb(user, ['import', file, '--acknowledge', ids])
    expect(acked.code, acked.stderr).toBe(0)
    writeFileSync(file, `${JSON.stringify({kind: 'kb-export', version: 1})}\n${entry('01930000-0000-7000-8000-00000000c002')}\n`)
    const red = await kb(user, ['import', file, '--redact'])
    expect(red.code, red.stderr).toBe(0)
    expect((await d.request('GET', '/knowledge/01930000-0000-7000-8000-00000000c002')).body.body).toContain('[REDACTED:aws-access-token]')
  })
})

describe('on a terminal', () => {
  it('kb publish asks; "r" redacts and publishes', async () => {
    const id = await leaky()
    const r = await kbTty(user, ['publish', id, '--scope', 'global'], {input: 'r\n'})
    expect(r.code, r.stdout).toBe(0)
    const out = r.stdout.replace(new RegExp(ANSI_RE.source, 'g'), '')
    expect(out).toContain('Redact them and go on [r], keep them as written and record that [k], or stop [s]?')
    expect(out).toMatch(/Published \S+ to global/)
    expectNoSecret(out)
    expect((await d.request('GET', `/knowledge/${id}`)).body.body).toContain('[REDACTED:aws-access-token]')
  })

  it('"k" keeps them as written, recorded; "s" stops with exit 5 and changes nothing', async () => {
    const kept = await leaky()
    const k = await kbTty(user, ['publish', kept], {input: 'k\n'})
    expect(k.code, k.stdout).toBe(0)
    const e = (await d.request('GET', `/knowledge/${kept}`, {query: {detail: 'full'}})).body
    expect(e).toMatchObject({scope: 'global', body: BODY})
    expect(e.comments[0].body).toMatch(/^Safe publish: publishing to global with 2 findings acknowledged/)
    const stopped = await leaky()
    const s = await kbTty(user, ['publish', stopped], {input: 's\n'})
    expect(s.code).toBe(5)
    expect(s.stdout).toContain('stopped: nothing was changed')
    expect(await scopeOf(stopped)).toBe('private')
  })

  it('kb comment on a shared entry asks too; "s" stores nothing', async () => {
    const id = (await d.request('POST', '/knowledge', {body: {title: 'Ours', body: 'Clean.', scope: 'global'}})).body.id
    const r = await kbTty(user, ['comment', id, `Seen: ${line('email')}`], {input: 's\n'})
    expect(r.code, r.stdout).toBe(5)
    expect(r.stdout.replace(new RegExp(ANSI_RE.source, 'g'), '')).toContain('keep them as written and record that [k], or stop [s]?')
    expect((await d.request('GET', `/knowledge/${id}`)).body.comment_count).toBe(0)
  })

  it('kb add into a shared scope asks too', async () => {
    // --yes: entries of the tests above look alike, and the question here is the safe-publish one.
    const r = await kbTty(user, ['add', 'Shared key', '--body', BODY, '--scope', 'global', '--yes'], {input: 'r\n'})
    expect(r.code, r.stdout).toBe(0)
    const out = r.stdout.replace(new RegExp(ANSI_RE.source, 'g'), '')
    expect(out).toContain('Redact them and go on [r], keep them as written and record that [k], or stop [s]?')
    expect(out).toMatch(/Created [0-9a-f]{7,12} {2}Shared key/)
    expectNoSecret(out)
  })
})
