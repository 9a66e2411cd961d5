/**
 * The `--dry-run` diff is a real unified diff: `git apply` applied to the "before" text gives the "after" text
 * exactly, for random edits of random files (several hunks, edits at either end, files created and emptied).
 */
import {execFileSync} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import fc from 'fast-check'
import {afterAll, describe, expect, it} from 'vitest'
import {unifiedDiff} from '../../../src/cli/agent/diff.js'

const dir = mkdtempSync(join(tmpdir(), 'kb-diff-'))
afterAll(() => rmSync(dir, {recursive: true, force: true}))

/** `before` patched with `diff` by `git apply` (git is on every machine that runs kb's tests). */
function patched(before: string, diff: string): string {
  const file = join(dir, 'f.txt')
  writeFileSync(file, before)
  execFileSync('git', ['apply', '--whitespace=nowarn', '-'], {cwd: dir, input: diff, stdio: ['pipe', 'pipe', 'pipe']})
  return readFileSync(file, 'utf8')
}

const text = fc
  .array(fc.constantFrom('{', '}', '  "a": 1,', '  "kb": {', '"mcp"', '', '# c'), {maxLength: 30})
  .map((l) => l.map((x) => `${x}\n`).join(''))

describe('unifiedDiff', () => {
  it('is empty for equal texts and names the file in git style', () => {
    expect(unifiedDiff('x.json', 'a\n', 'a\n')).toBe('')
    expect(unifiedDiff('.mcp.json', null, '{}\n')).toBe('--- /dev/null\n+++ b/.mcp.json\n@@ -0,0 +1,1 @@\n+{}\n')
    expect(unifiedDiff('~/.codex/config.toml', 'a = 1\n', null)).toBe('--- ~/.codex/config.toml\n+++ /dev/null\n@@ -1,1 +0,0 @@\n-a = 1\n')
  })

  it('two changes far apart are two hunks with three lines of context each', () => {
    const before = Array.from({length: 20}, (_, i) => `line ${i + 1}\n`).join('')
    const after = before.replace('line 2\n', 'line two\n').replace('line 18\n', 'line eighteen\n')
    const d = unifiedDiff('f.txt', before, after)
    expect(d.match(/^@@ .* @@$/gm)).toEqual(['@@ -1,5 +1,5 @@', '@@ -15,6 +15,6 @@'])
    expect(patched(before, d)).toBe(after)
  })

  it('patch turns before into after (random edits)', () => {
    fc.assert(
      fc.property(text, text, (before, after) => {
        if (before === after || before === '') return
        expect(patched(before, unifiedDiff('f.txt', before, after))).toBe(after)
      }),
      {numRuns: 60},
    )
  })
})
