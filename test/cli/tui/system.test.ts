/**
 * What `kb browse` asks of the machine: the browser opener's argument vector on each platform (no
 * shell anywhere, http and https only), and the clipboard's honesty about where a copy went.
 */
import {spawnSync} from 'node:child_process'
import {describe, expect, it} from 'vitest'
import {openBrowser, openerCommand} from '../../../src/cli/oauth/browser.js'
import {copyText} from '../../../src/cli/tui/system.js'
import {requireSystem} from '../../helpers/system.js'

const HOSTILE = 'https://example.com/a b?q="x"&y=1|calc^%PATH%'

describe('opening a URL', () => {
  it('runs the opener with the URL as one argument, never through a shell', () => {
    expect(openerCommand('https://example.com/fix?a=1&b=2', 'darwin')).toEqual({cmd: 'open', args: ['https://example.com/fix?a=1&b=2']})
    expect(openerCommand('https://example.com/fix?a=1&b=2', 'linux')).toEqual({cmd: 'xdg-open', args: ['https://example.com/fix?a=1&b=2']})
    expect(openerCommand('https://example.com/fix?a=1&b=2', 'win32')).toEqual({
      cmd: 'rundll32',
      args: ['url.dll,FileProtocolHandler', 'https://example.com/fix?a=1&b=2'],
    })
  })

  it('keeps characters a shell would read inside the one argument, spaces and quotes percent-encoded', () => {
    for (const platform of ['win32', 'darwin', 'linux'] as const) {
      const c = openerCommand(HOSTILE, platform)!
      const url = c.args.at(-1)!
      expect(url).toBe('https://example.com/a%20b?q=%22x%22&y=1|calc^%PATH%')
      expect(url).not.toMatch(/[\s"]/)
      expect(c.cmd).not.toMatch(/^(cmd|sh|bash|powershell)/)
    }
  })

  it('opens only http and https', async () => {
    for (const url of ['file:///etc/passwd', 'javascript:alert(1)', 'vscode://open?x', 'ms-settings:', 'not a url', '']) {
      for (const platform of ['win32', 'darwin', 'linux'] as const) expect(openerCommand(url, platform), `${url} on ${platform}`).toBeNull()
      expect(await openBrowser(url, 'linux')).toBe(false)
    }
    expect(openerCommand('http://127.0.0.1:7411/oauth/callback', 'linux')).toEqual({
      cmd: 'xdg-open',
      args: ['http://127.0.0.1:7411/oauth/callback'],
    })
  })
})

requireSystem('tmux').describe('copying inside tmux', () => {
  it("puts the text in tmux's paste buffer and says so", async () => {
    const {mkdtempSync} = await import('node:fs')
    const {join} = await import('node:path')
    const {tmpdir} = await import('node:os')
    const socket = join(mkdtempSync(join(tmpdir(), 'kb-copy-')), 'tmux.sock')
    spawnSync('tmux', ['-S', socket, '-f', '/dev/null', 'new-session', '-d', 'sleep 30'])
    try {
      // Inside a pane, TMUX names the server: socket path, server pid, session.
      const env = {PATH: process.env.PATH ?? '', TMUX: `${socket},1,0`}
      const written: string[] = []
      const r = await copyText('0199aaaa-id', {env, write: (s) => written.push(s)})
      expect(r).toEqual({where: "tmux's paste buffer (prefix ] pastes it)", certain: true})
      expect(written).toEqual([])
      expect(spawnSync('tmux', ['-S', socket, 'show-buffer']).stdout.toString()).toBe('0199aaaa-id')
    } finally {
      spawnSync('tmux', ['-S', socket, 'kill-server'])
    }
  })
})
