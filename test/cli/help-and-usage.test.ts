/**
 * `-h` works wherever `--help` does, and oclif's own parse errors (and `kb daemon run`'s) are one `kb:`
 * line, with a one-line `--json` message (docs/cli.md, "Global flags" and "Exit codes").
 */
import {afterAll, describe, expect, it} from 'vitest'
import {cleanup, kb, makeUser} from './helpers.js'

// NODE_ENV as a user has it: under vitest's 'test' oclif adds a developer warning for a command whose parse failed.
const user = makeUser({KB_NO_AUTOSTART: '1', NODE_ENV: 'production'})

afterAll(async () => {
  await cleanup(user)
})

describe('-h', () => {
  it.each([[['-h']], [['show', '-h']], [['daemon', 'run', '-h']], [['config', 'get', '-h']], [['list', '--limit', '3', '-h']]])(
    'kb %j prints help',
    async (args) => {
      const r = await kb(user, args)
      expect(r.code, r.stderr).toBe(0)
      expect(r.stdout).toMatch(/USAGE/)
      expect(r.stderr).toBe('')
    },
  )
})

describe('kb --help', () => {
  it('lists autocomplete once, as a topic naming bash, zsh and fish (src/cli/help.ts)', async () => {
    const r = await kb(user, ['--help'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout.match(/^ {2}autocomplete\b/gm)).toHaveLength(1)
    expect(r.stdout).toMatch(/^ {2}autocomplete +Shell completion: kb autocomplete \[bash\|zsh\] prints the steps,/m)
    // Every other command is still listed, and the topic's commands under it.
    for (const c of ['add', 'search', 'show', 'daemon', 'project']) expect(r.stdout).toMatch(new RegExp(`^ {2}${c}\\b`, 'm'))
    expect((await kb(user, ['help', 'autocomplete', 'fish'])).stdout).toContain('Print the fish completion script')
  })
})

describe('parse errors are one kb: line', () => {
  it.each([
    [['list', '--limit', 'abc'], /^kb: --limit: expected an integer but received: abc \(see --help\)$/],
    [['show'], /^kb: missing argument ID \(entry id, or a short id: its start or end\) \(see --help\)$/],
    [['daemon', 'run', '--port', 'abc'], /^kb: --port: expected an integer but received: abc \(see --help\)$/],
  ])('kb %j', async (args, line) => {
    const r = await kb(user, args)
    expect(r.code).toBe(2)
    expect(r.stderr.trimEnd().split('\n'), r.stderr).toHaveLength(1)
    expect(r.stderr.trimEnd()).toMatch(line)
  })

  it('--json: the message has no line break', async () => {
    const r = await kb(user, ['list', '--limit', '0', '--json'])
    expect(r.code).toBe(2)
    const {error} = JSON.parse(r.stdout)
    expect(error).toMatchObject({code: 'usage', exit: 2})
    expect(error.message).toBe('--limit: expected an integer greater than or equal to 1 but received: 0 (see --help)')
  })
})
