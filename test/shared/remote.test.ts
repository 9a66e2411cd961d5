/**
 * @module Canonical git remotes (docs/api.md, "Canonical remotes"): a table of the forms git accepts, properties that hold for
 * any input, and the end-to-end promise that two spellings of one remote join one project.
 */
import fc from 'fast-check'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {canonicalRemote, remoteName} from '../../src/shared/remote.js'
import {joinApproved, newPrincipal, startInProcessDaemon, type TestDaemon} from '../helpers/daemon.js'

describe('canonicalRemote: the forms of docs/api.md, "Canonical remotes"', () => {
  const table: Array<[string, string]> = [
    // the four examples of docs/api.md
    ['git@github.com:acme/api.git', 'github.com/acme/api'],
    ['ssh://git@github.com:22/acme/api', 'github.com/acme/api'],
    ['https://github.com/acme/api.git', 'github.com/acme/api'],
    ['https://user:pw@GitHub.com/acme/api/', 'github.com/acme/api'],
    // scp-like variants
    ['github.com:acme/api', 'github.com/acme/api'],
    ['git@github.com:/acme/api.git', 'github.com/acme/api'],
    ['deploy-bot@git.example.org:Team/Service.git', 'git.example.org/team/service'],
    // ssh:// with user and port
    ['ssh://git@gitlab.example.com:2222/group/repo.git', 'gitlab.example.com/group/repo'],
    ['ssh://gitlab.example.com/group/repo', 'gitlab.example.com/group/repo'],
    ['git+ssh://git@github.com/acme/api.git', 'github.com/acme/api'],
    // https with credentials, tokens, ports, trailing slashes and .git/
    ['https://x-access-token:ghp_abc123@github.com/acme/api.git', 'github.com/acme/api'],
    ['https://oauth2:p%40ss@gitlab.com/acme/api.git', 'gitlab.com/acme/api'],
    ['https://github.com:443/acme/api', 'github.com/acme/api'],
    ['http://git.internal:8080/acme/api.git/', 'git.internal/acme/api'],
    ['https://github.com/acme/api.git/', 'github.com/acme/api'],
    ['https://github.com/acme/api//', 'github.com/acme/api'],
    ['HTTPS://GITHUB.COM/Acme/API.GIT', 'github.com/acme/api'],
    ['https://github.com/acme/api?tab=readme#top', 'github.com/acme/api'],
    ['  https://github.com/acme/api  ', 'github.com/acme/api'],
    // nested GitLab groups stay
    ['git@gitlab.com:group/sub/repo.git', 'gitlab.com/group/sub/repo'],
    ['https://gitlab.com/Group/Sub/Deeper/Repo', 'gitlab.com/group/sub/deeper/repo'],
    // git://
    ['git://git.kernel.org/pub/scm/git/git.git', 'git.kernel.org/pub/scm/git/git'],
    ['git://github.com:9418/acme/api', 'github.com/acme/api'],
    // IPv6 hosts keep their brackets, lose their ports
    ['ssh://git@[2001:db8::1]:2222/owner/repo.git', '[2001:db8::1]/owner/repo'],
    ['git@[2001:DB8::1]:owner/repo.git', '[2001:db8::1]/owner/repo'],
    ['https://[2001:db8::1]/owner/repo', '[2001:db8::1]/owner/repo'],
    // IPv4 hosts
    ['http://10.0.0.5:3000/owner/repo.git', '10.0.0.5/owner/repo'],
    // percent-encoding is decoded, except for what would change the path's meaning
    ['https://github.com/acme/my%2Dapi', 'github.com/acme/my-api'],
    ['https://git.example.org/acme/a%2Fb', 'git.example.org/acme/a%2fb'],
    // host:port/path as some tools write it
    ['git@github.com:22/acme/api.git', 'github.com/acme/api'],
    ['git@github.com:1234/api.git', 'github.com/1234/api'],
  ]

  it.each(table)('%s → %s', (input, expected) => {
    expect(canonicalRemote(input)).toBe(expected)
  })

  const notRemotes = [
    '',
    '   ',
    'api',
    '/home/me/src/api',
    './api',
    '../api',
    'file:///home/me/src/api',
    'C:\\src\\api',
    'C:/src/api',
    'https://github.com',
    'https://github.com/',
    'git@github.com:',
    'git@github.com:.git',
    'https:///acme/api',
    'https://github.com/acme/../api',
    'https://github.com/acme/my repo',
    'https://evil@@/x/y',
    'ssh://[::1/owner/repo',
  ]
  it.each(notRemotes)('%j is not a remote', (input) => {
    expect(canonicalRemote(input)).toBeNull()
  })

  it('names a project after the last part', () => {
    expect(remoteName('gitlab.com/group/sub/repo')).toBe('repo')
  })
})

// ---- properties ----

const lowerAlnum = 'abcdefghijklmnopqrstuvwxyz0123456789'
const nameChar = fc.constantFrom(...`${lowerAlnum}ABCDEFGHIJKLMNOPQRSTUVWXYZ-_`.split(''))
const label = fc.string({unit: fc.constantFrom(...lowerAlnum.split('')), minLength: 1, maxLength: 12})
const hostArb = fc.oneof(
  {weight: 4, arbitrary: fc.array(label, {minLength: 1, maxLength: 4}).map((ls) => ls.join('.'))},
  {weight: 1, arbitrary: fc.ipV4()},
  {weight: 1, arbitrary: fc.ipV6().map((ip) => `[${ip}]`)},
)
// Repository path parts as forges allow them: letters, digits, '-', '_' and inner dots.
const partArb = fc
  .tuple(
    fc.string({unit: nameChar, minLength: 1, maxLength: 12}),
    fc.option(fc.string({unit: nameChar, minLength: 1, maxLength: 6}), {nil: undefined}),
  )
  .map(([a, b]) => (b === undefined ? a : `${a}.${b}`))
  .filter((p) => !/\.git$/i.test(p))
const pathArb = fc.array(partArb, {minLength: 1, maxLength: 4})

interface Spelling {
  host: string
  parts: string[]
  url: string
}

/** One remote spelt any of the ways git accepts, with the parts it must canonicalise to. */
const spelling: fc.Arbitrary<Spelling> = fc
  .record({
    host: hostArb,
    parts: pathArb,
    form: fc.constantFrom('scp', 'ssh', 'https', 'http', 'git', 'git+ssh'),
    user: fc.option(fc.constantFrom('git', 'me', 'x-access-token', 'deploy.bot'), {nil: undefined}),
    password: fc.option(fc.constantFrom('pw', 'ghp_AbC123', 'p%40ss'), {nil: undefined}),
    port: fc.option(fc.integer({min: 1, max: 65535}), {nil: undefined}),
    dotGit: fc.constantFrom('', '.git', '.GIT', '.git/', '/'),
    upperHost: fc.boolean(),
    space: fc.constantFrom('', ' ', '\t'),
  })
  .map(({host, parts, form, user, password, port, dotGit, upperHost, space}) => {
    const h = upperHost ? host.toUpperCase() : host
    const path = parts.join('/') + dotGit
    let url: string
    // host:22/owner/repo reads as a port in scp-like form, so a numeric first part is spelt another way there
    if (form === 'scp' && !(parts.length >= 3 && /^\d+$/.test(parts[0]!))) url = `${user ? `${user}@` : ''}${h}:${path}`
    else {
      const scheme = form === 'scp' ? 'ssh' : form
      const cred = user ? `${user}${password ? `:${password}` : ''}@` : ''
      url = `${scheme}://${cred}${h}${port === undefined ? '' : `:${port}`}/${path}`
    }
    return {host, parts, url: `${space}${url}${space}`}
  })

describe('canonicalRemote: properties', () => {
  it('maps every spelling of a remote to host/owner/repo in lower case', () => {
    fc.assert(
      fc.property(spelling, ({host, parts, url}) => {
        expect(canonicalRemote(url)).toBe([host, ...parts].join('/').toLowerCase())
      }),
      {numRuns: 1000},
    )
  })

  it('is idempotent: the canonical form read back as an https URL gives itself', () => {
    const anyInput = fc.oneof(
      spelling.map((s) => s.url),
      fc.string({maxLength: 80}),
      fc.string({unit: 'grapheme', maxLength: 40}),
      urlish(),
    )
    fc.assert(
      fc.property(anyInput, (input) => {
        const c = canonicalRemote(input)
        if (c === null) return
        expect(canonicalRemote(`https://${c}`)).toBe(c)
        expect(canonicalRemote(`https://${c}.git/`)).toBe(c)
        // scp-like spelling, unless the first path part is a number (read as a port: `host:22/…`) or an
        // `@` makes it ambiguous (`host:a@b` reads as user `host:a`)
        if (!/^[^/]+\/\d+\//.test(c) && !c.includes('@')) expect(canonicalRemote(c.replace('/', ':'))).toBe(c)
      }),
      {numRuns: 2000},
    )
  })

  it('never throws, and what it returns has no scheme, user, port, .git or upper case', () => {
    const anyInput = fc.oneof(
      fc.string({maxLength: 120}),
      fc.string({unit: 'binary', maxLength: 60}),
      urlish(),
      spelling.map((s) => s.url),
    )
    fc.assert(
      fc.property(anyInput, (input) => {
        const c = canonicalRemote(input)
        if (c === null) return
        expect(c).toBe(c.toLowerCase())
        expect(c).not.toMatch(/^[a-z][a-z0-9+.-]*:\/\//)
        expect(c).not.toMatch(/\.git$/)
        expect(c).not.toMatch(/\s/)
        const [host, ...rest] = c.startsWith('[')
          ? [c.slice(0, c.indexOf(']') + 1), ...c.slice(c.indexOf(']') + 2).split('/')]
          : c.split('/')
        expect(host).not.toBe('')
        expect(host).not.toMatch(/[@/?#]/)
        if (!host!.startsWith('[')) expect(host).not.toContain(':')
        expect(rest.length).toBeGreaterThan(0)
        for (const p of rest) expect(['', '.', '..']).not.toContain(p)
      }),
      {numRuns: 3000},
    )
  })

  it('takes linear time on the longest remote the API accepts (2,048 characters)', () => {
    canonicalRemote('github.com/acme/api') // compiles the expressions
    for (const remote of [
      'a.'.repeat(1024),
      `${'a.'.repeat(1023)}/`,
      `h.io/${'.git'.repeat(510)}x`,
      `git@h:${'/'.repeat(2040)}`,
      '['.repeat(2048),
      `ssh://[${':'.repeat(2030)}x]/a/b`,
      `[${':'.repeat(2030)}x]:a/b`,
    ]) {
      const started = performance.now()
      canonicalRemote(remote)
      // The host expression backtracked quadratically on `a.a.a.…` (about 10 ms here, more on a loaded machine).
      expect(performance.now() - started, remote.slice(0, 20)).toBeLessThan(5)
    }
  })
})

/** Strings built from URL punctuation, so the parser's corners get visited. */
function urlish(): fc.Arbitrary<string> {
  const piece = fc.constantFrom(
    'https://',
    'ssh://',
    'git://',
    'file://',
    '://',
    'git@',
    '@',
    ':',
    '::',
    '[',
    ']',
    '[::1]',
    '/',
    '//',
    '.',
    '..',
    '.git',
    '.GIT',
    '?',
    '#',
    '%',
    '%2F',
    '%2e',
    '%25',
    '%3F',
    '%zz',
    '%00',
    '\\',
    ' ',
    'github.com',
    'GitHub.COM',
    'acme',
    'api',
    '22',
    '443',
    'é',
    '😀',
    'C:',
    '~',
    '+',
    '\u0000',
    '\u007f',
  )
  return fc.array(piece, {minLength: 1, maxLength: 10}).map((xs) => xs.join(''))
}

describe('POST /projects/join canonicalises the remote', () => {
  let d: TestDaemon
  beforeAll(async () => {
    d = await startInProcessDaemon()
  })
  afterAll(async () => {
    await d.stop()
  })

  it('joins one project from two spellings of one remote', async () => {
    const first = await d.request('POST', '/projects/join', {body: {remote: 'git@github.com:Acme/API.git'}})
    expect(first.status).toBe(201)
    expect(first.body.created).toBe(true)
    expect(first.body.project.remote).toBe('github.com/acme/api')
    expect(first.body.project.name).toBe('api')
    expect(first.body.project.role).toBe('maintainer')

    const bob = await newPrincipal(d, 'bob')
    // Another spelling names the same project: bob's request to join it waits for a maintainer (docs/api.md, "Membership").
    const asked = await d.request('POST', '/projects/join', {key: bob, body: {remote: 'https://bob:secret@GITHUB.com:443/acme/api.git/'}})
    expect(asked.status).toBe(202)
    expect(asked.body.project.id).toBe(first.body.project.id)
    const second = await joinApproved(d, 'https://bob:secret@GITHUB.com:443/acme/api.git/', bob)
    expect(second.created).toBe(false)
    expect(second.project.id).toBe(first.body.project.id)
    expect(second.project.role).toBe('member')

    // The owner joining again through a third spelling changes nothing.
    const again = await d.request('POST', '/projects/join', {body: {remote: 'ssh://git@github.com:22/acme/api'}})
    expect(again.status).toBe(200)
    expect(again.body.project).toEqual(first.body.project)

    const bobs = await d.request('GET', '/projects', {key: bob})
    expect(bobs.body.items.map((p: {id: string}) => p.id)).toEqual([first.body.project.id])
  })

  it('keeps nested groups and IPv6 hosts apart from their neighbours', async () => {
    const nested = await d.request('POST', '/projects/join', {body: {remote: 'git@gitlab.com:group/sub/repo.git'}})
    const shallow = await d.request('POST', '/projects/join', {body: {remote: 'https://gitlab.com/group/repo'}})
    const v6 = await d.request('POST', '/projects/join', {body: {remote: 'ssh://git@[2001:db8::1]:2222/group/repo.git'}})
    expect([nested.status, shallow.status, v6.status]).toEqual([201, 201, 201])
    expect(nested.body.project.remote).toBe('gitlab.com/group/sub/repo')
    expect(shallow.body.project.remote).toBe('gitlab.com/group/repo')
    expect(v6.body.project.remote).toBe('[2001:db8::1]/group/repo')
    const v6again = await d.request('POST', '/projects/join', {body: {remote: 'git@[2001:DB8::1]:group/repo'}})
    expect(v6again.status).toBe(200)
    expect(v6again.body.project.id).toBe(v6.body.project.id)
  })

  it('refuses what is not a remote with a 422 naming the field', async () => {
    for (const remote of ['not a remote', '/home/me/api', 'file:///srv/git/api.git', 'https://github.com/']) {
      const res = await d.request('POST', '/projects/join', {body: {remote}})
      expect(res.status, remote).toBe(422)
      expect(res.headers.get('content-type')).toContain('application/problem+json')
      expect(res.body.code).toBe('validation_failed')
      expect(res.body.errors).toEqual([{path: 'remote', message: expect.any(String)}])
    }
  })
})
