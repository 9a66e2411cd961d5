/**
 * Shell completion as each shell runs it: bash (the plugin's script, its completion function called with
 * COMP_WORDS as readline would), zsh (the plugin's script in a real zsh in a tmux pane, Tab pressed), fish
 * (our `kb autocomplete fish`, asked with `complete -C`). Each offers commands, a topic's subcommands, a
 * command's flags and an option's values.
 */
import {execFile} from 'node:child_process'
import {mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {promisify} from 'node:util'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {requireSystem} from '../helpers/system.js'
import {cleanup, kb, makeUser, run, type KbEnv} from './helpers.js'

const exec = promisify(execFile)
const fish = requireSystem('fish')
const zsh = requireSystem('zsh', 'tmux')

let user: KbEnv

beforeAll(async () => {
  user = makeUser()
  const r = await kb(user, ['autocomplete', '--refresh-cache'])
  expect(r.code, r.stderr).toBe(0)
})

afterAll(async () => {
  if (user) await cleanup(user)
})

describe('bash', () => {
  /** What `kb <words><TAB>` offers: the setup line kb prints, then the completion function bash would call. */
  async function complete(words: string[]): Promise<string[]> {
    const setup = (await kb(user, ['autocomplete', 'script', 'bash'])).stdout.trim()
    const script = `${setup}
COMP_WORDS=(kb "$@"); COMP_CWORD=$(( $# )); COMP_LINE="kb $*"; COMP_POINT=\${#COMP_LINE}
$(complete -p kb | sed -E 's/.* -F ([^ ]+) .*/\\1/')
printf '%s\\n' "\${COMPREPLY[@]}"`
    const r = await run('bash', ['-c', script, 'bash', ...words], user)
    expect(r.stderr).toBe('')
    return [...new Set(r.stdout.split('\n').filter((l) => l !== ''))].sort()
  }

  it('completes commands, subcommands and flags from the setup line `kb autocomplete script bash` prints', async () => {
    const top = await complete([''])
    for (const c of ['add', 'search', 'show', 'api-key', 'daemon', 'autocomplete']) expect(top).toContain(c)
    expect(await complete(['api-key', ''])).toEqual(['create', 'list', 'revoke'])
    expect(await complete(['search', '--ma'])).toEqual(['--max-tokens'])
    expect(await complete(['se'])).toEqual(['search'])
  })

  it("completes a flag's choices, short flags, and flags after arguments (src/cli/completion/bash.ts)", async () => {
    expect(await complete(['search', '--scope', ''])).toEqual(['global', 'private', 'project'])
    expect(await complete(['search', '--scope', 'pr'])).toEqual(['private', 'project'])
    // readline splits `--scope=` at the '='.
    expect(await complete(['search', '--scope', '=', ''])).toEqual(['global', 'private', 'project'])
    expect(await complete(['show', '0193a7e2', '--detail', ''])).toEqual(['full', 'standard', 'summary'])
    expect(await complete(['daemon', 'run', '--log-level', 'd'])).toEqual(['debug'])
    expect(await complete(['review', '-L', 'no-such-file-'])).toEqual([])
    const flags = await complete(['search', '-'])
    for (const f of ['-L', '--limit', '--scope', '--detail']) expect(flags).toContain(f)
    expect(await complete(['show', '0193a7e2', '--de'])).toEqual(['--detail'])
    expect(await complete(['agent', 'install', '--no-'])).toEqual(['--no-instructions'])
    // Not a flag's value: the plugin's completion still answers.
    expect(await complete(['api-key', 'create', '--json', '-'])).toContain('--json')
    expect(await complete(['api-key', ''])).toEqual(['create', 'list', 'revoke'])
  })
})

zsh.describe('zsh', () => {
  /** The zsh screen after typing `line` and Tab in a real interactive zsh (tmux) once `want` shows. */
  async function tabIn(line: string, want: RegExp): Promise<string> {
    const socket = join(user.root, 'tmux.sock')
    const zdot = join(user.root, 'zdot')
    mkdirSync(zdot, {recursive: true})
    const setup = (await kb(user, ['autocomplete', 'script', 'zsh'])).stdout.trim()
    writeFileSync(join(zdot, '.zshrc'), `PS1='%% '\n${setup}\n`)
    const env = {...user.env, ZDOTDIR: zdot, TERM: 'xterm-256color'}
    const tmux = async (...args: string[]): Promise<string> =>
      (await exec(zsh.paths.tmux!, ['-S', socket, '-f', '/dev/null', ...args], {env})).stdout
    try {
      await tmux('new-session', '-d', '-x', '120', '-y', '20', '-s', 'zsh', zsh.paths.zsh!, '-i')
      let screen = ''
      const waitFor = async (pattern: RegExp): Promise<void> => {
        const end = Date.now() + 15_000
        while (!pattern.test((screen = await tmux('capture-pane', '-p', '-t', 'zsh')))) {
          if (Date.now() > end) throw new Error(`expected ${pattern} on the zsh screen; screen:\n${screen}`)
          await new Promise((r) => setTimeout(r, 100))
        }
      }
      await waitFor(/^%/m)
      await tmux('send-keys', '-t', 'zsh', '-l', line)
      await tmux('send-keys', '-t', 'zsh', 'Tab')
      await waitFor(want)
      return screen
    } finally {
      await tmux('kill-server').catch(() => undefined)
    }
  }

  it("offers a topic's subcommands on Tab in a real zsh", async () => {
    const screen = await tabIn('kb api-key ', /revoke/)
    expect(screen).toMatch(/create/)
    expect(screen).toMatch(/list/)
  })

  it("offers a flag's choices and short flags on Tab in a real zsh", async () => {
    const choices = await tabIn('kb show 0193a7e2 --detail ', /standard/)
    expect(choices).toMatch(/summary/)
    expect(choices).toMatch(/full/)
    expect(await tabIn('kb search --scope pr', /private/)).toMatch(/project/)
    const flags = await tabIn('kb search -', /--limit/)
    expect(flags).toMatch(/-L\b/)
  })
})

fish.describe('fish', () => {
  it('completes commands, subcommands, flags after an argument, and option values from `kb autocomplete fish`', async () => {
    const script = await kb(user, ['autocomplete', 'fish'])
    expect(script.code, script.stderr).toBe(0)
    const file = join(user.root, 'kb.fish')
    writeFileSync(file, script.stdout)
    const complete = async (line: string): Promise<string[]> => {
      const r = await run(fish.paths.fish!, ['--no-config', '-c', `source ${file}; complete -C ${JSON.stringify(line)}`], user)
      expect(r.stderr).toBe('')
      return r.stdout
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => l.split('\t')[0]!)
    }
    const top = await complete('kb ')
    for (const c of ['add', 'search', 'show', 'api-key', 'autocomplete']) expect(top).toContain(c)
    expect(top).not.toContain('create')
    expect(await complete('kb api-key ')).toEqual(['create', 'list', 'revoke'])
    expect(await complete('kb show 0193a7e2 --de')).toEqual(['--detail'])
    expect((await complete('kb show 0193a7e2 --detail ')).sort()).toEqual(['full', 'standard', 'summary'])
    expect(await complete('kb search -')).toContain('-L')
    // Descriptions come along, oclif's templates filled in.
    const described = await run(fish.paths.fish!, ['--no-config', '-c', `source ${file}; complete -C "kb "`], user)
    expect(described.stdout).toMatch(/^search\tSearch knowledge entries$/m)
    expect(described.stdout).not.toContain('<%=')
  })
})
