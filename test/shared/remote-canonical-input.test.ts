import {describe, expect, it} from 'vitest'
import {canonicalRemote} from '../../src/shared/remote.js'

// People paste what kb shows them: the canonical form is itself a valid remote.
describe('canonicalRemote accepts the canonical form', () => {
  it.each([
    ['github.com/acme/api', 'github.com/acme/api'],
    ['GitHub.com/Acme/API.git', 'github.com/acme/api'],
    ['gitlab.com/group/sub/repo', 'gitlab.com/group/sub/repo'],
    ['[2001:db8::1]/owner/repo', '[2001:db8::1]/owner/repo'],
    ['localhost/owner/repo', 'localhost/owner/repo'],
  ])('%s → %s', (input, expected) => {
    expect(canonicalRemote(input)).toBe(expected)
    expect(canonicalRemote(expected)).toBe(expected)
  })

  it.each(['repo', './repo', '../repo', '/srv/git/repo', 'C:/work/repo'])('%s is not a remote', (input) => {
    expect(canonicalRemote(input)).toBeNull()
  })
})
