/**
 * Safe publish in `kb browse` (docs/tui.md, "Safe publish") through its Ink component against a real daemon:
 * publishing shows what it would expose before anything changes — the findings, masked, and what redaction
 * would change — then r redacts, k keeps them as written (recorded on the entry) and s or Esc stop, leaving
 * the entry private; a clean entry publishes as confirmed. A comment refused on a shared entry is reviewed
 * the same way. No secret, and no escape sequence from an entry, reaches the screen.
 */
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'
import {startInProcessDaemon, type TestDaemon} from '../../helpers/daemon.js'
import {fakeCorpus} from '../../server/scan/fake-corpus.js'
import {entry, KEY, row, ui, unmountAll, type Ui} from './ink-ui.js'

const corpus = fakeCorpus(4242)
const secret = (kind: string): string => corpus.find((s) => s.kind === kind)!.secret
const line = (kind: string): string => corpus.find((s) => s.kind === kind)!.text
// An escape sequence next to a finding: its excerpt carries it unless the screen cleans it.
const BODY = `The job printed\n\u001B]0;pwned\u0007${line('aws-access-token')}\nand mailed ${secret('email')}.`

let d: TestDaemon

beforeAll(async () => {
  d = await startInProcessDaemon()
})
afterAll(async () => {
  await d?.stop()
})
afterEach(unmountAll)

async function add(title: string, body: string, scope = 'private'): Promise<string> {
  const res = await d.request('POST', '/knowledge', {body: {title, body, scope}})
  expect(res.status, res.text).toBe(201)
  return res.body.id
}

/** Opens `kb browse` on the entry and confirms publishing it to global: the review comes up. */
async function publishing(title: string): Promise<Ui> {
  const u = ui(d, {query: title, rows: 40})
  await u.waitFor(row(title))
  await u.press('p')
  await u.waitFor(/^to: +global\s*$/m)
  await u.press(KEY.enter)
  return u
}

function expectSafe(frame: string): void {
  expect(frame).not.toContain(secret('aws-access-token'))
  expect(frame).not.toContain(secret('email'))
  expect(frame).not.toContain('\u001B]0;')
  expect(frame).not.toContain('\u0007')
}

describe('kb browse: publish with safe publish', () => {
  it('a clean entry publishes as confirmed', async () => {
    const id = await add('Clean publish candidate', 'Restart the daemon with kb daemon restart.')
    const u = await publishing('Clean publish candidate')
    await u.waitFor('Published "Clean publish candidate" to global')
    expect(u.frame()).not.toContain('would share')
    expect((await entry(d, id)).scope).toBe('global')
  })

  it('findings: the review comes before anything changes; r redacts and publishes', async () => {
    const id = await add('Leaky redact candidate', BODY)
    const u = await publishing('Leaky redact candidate')
    const shown = await u.waitFor('Publishing "Leaky redact candidate" to global would share 2 secrets or pieces of personal data:')
    expect(shown).toMatch(/AWS access key · body, line 2/)
    expect(shown).toMatch(/email address · body, line 3/)
    expect(shown).toContain('aws_access_key_id = AKIA…')
    expect(shown).toContain('Redaction would change:')
    expect(shown).toContain('+ and mailed [REDACTED:email].')
    expect(shown).toContain('Publish to global "Leaky redact candidate" with 2 findings (above)?')
    expect(shown).toContain('r redact  k keep as written (recorded)  s/Esc stop')
    expectSafe(shown)
    // Nothing has changed yet.
    expect((await entry(d, id)).scope).toBe('private')
    await u.press('r')
    await u.waitFor('Published "Leaky redact candidate" to global, findings redacted')
    const after = (await d.request('GET', `/knowledge/${id}`)).body
    expect(after.scope).toBe('global')
    expect(after.body).toContain('aws_access_key_id = [REDACTED:aws-access-token]')
    expect(after.body).toContain('and mailed [REDACTED:email].')
  })

  it('findings: k publishes them as written, recorded on the entry', async () => {
    const id = await add('Leaky keep candidate', BODY)
    const u = await publishing('Leaky keep candidate')
    await u.waitFor('would share 2 secrets')
    await u.press('k')
    await u.waitFor('Published "Leaky keep candidate" to global, findings kept as written (recorded on the entry)')
    const after = (await d.request('GET', `/knowledge/${id}`, {query: {detail: 'full'}})).body
    expect(after).toMatchObject({scope: 'global', body: BODY})
    expect(after.comments[0].body).toMatch(/^Safe publish: publishing to global with 2 findings acknowledged/)
  })

  it('findings: s or Esc stops and the entry stays private', async () => {
    const id = await add('Leaky stop candidate', BODY)
    for (const stop of ['s', KEY.esc]) {
      const u = await publishing('Leaky stop candidate')
      await u.waitFor('would share 2 secrets')
      await u.press(stop)
      await u.waitFor('Not published: "Leaky stop candidate" stays private; nothing was changed')
      expect(u.frame()).not.toContain('would share')
      unmountAll()
    }
    const after = (await d.request('GET', `/knowledge/${id}`, {query: {detail: 'full'}})).body
    expect(after).toMatchObject({scope: 'private', body: BODY, version: 1, comment_count: 0})
  })

  it('a comment with a secret on a shared entry is reviewed; s gives it back to edit, r sends it redacted', async () => {
    const id = await add('Shared comment target', 'Clean.', 'global')
    const u = ui(d, {query: 'Shared comment target', rows: 40})
    await u.waitFor(row('Shared comment target'))
    await u.press('c')
    await u.type(`Mail ${secret('email')}`)
    await u.press(KEY.enter)
    const shown = await u.waitFor('This comment on "Shared comment target" (global) would share a secret or personal data:')
    expect(shown).toMatch(/email address · comment, line 1/)
    expect(shown).not.toContain(secret('email'))
    await u.press('s')
    await u.waitFor('Comment not sent (nothing was changed): edit it, or Esc to drop it')
    await u.press(KEY.enter)
    await u.waitFor('would share a secret')
    await u.press('r')
    await u.waitFor('Commented on "Shared comment target" (note), findings redacted')
    expect((await entry(d, id)).comments!.map((c) => c.body)).toEqual(['Mail [REDACTED:email]'])
  })
})
