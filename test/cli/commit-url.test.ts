/**
 * The commit web URL the git hook records, per forge, from every remote form git accepts.
 */
import {describe, expect, it} from 'vitest'
import {commitWebUrl} from '../../src/cli/hooks/git-hook.js'

const SHA = '0123456789abcdef0123456789abcdef01234567'

describe('commitWebUrl', () => {
  it.each([
    ['git@github.com:Acme/API.git', `https://github.com/acme/api/commit/${SHA}`],
    ['https://github.example.com/acme/api', `https://github.example.com/acme/api/commit/${SHA}`],
    ['ssh://git@gitlab.com:22/group/sub/repo.git', `https://gitlab.com/group/sub/repo/-/commit/${SHA}`],
    ['https://gitlab.acme.dev/team/repo.git', `https://gitlab.acme.dev/team/repo/-/commit/${SHA}`],
    ['git@bitbucket.org:acme/api.git', `https://bitbucket.org/acme/api/commits/${SHA}`],
    ['https://codeberg.org/acme/api.git', `https://codeberg.org/acme/api/commit/${SHA}`],
    ['https://gitea.acme.dev/acme/api', `https://gitea.acme.dev/acme/api/commit/${SHA}`],
  ])('%s', (remote, url) => {
    expect(commitWebUrl(remote, SHA)).toBe(url)
  })

  it('gives no URL for an unknown host or a local path', () => {
    expect(commitWebUrl('git@git.acme.internal:acme/api.git', SHA)).toBeNull()
    expect(commitWebUrl('/srv/git/api.git', SHA)).toBeNull()
  })
})
