/**
 * The terminal renderer of entry Markdown (src/cli/render/): every construct an entry uses, rendered at 80
 * and 120 columns and compared with the committed snapshot, escapes made visible (⎋); no line wider than
 * asked at any width; themes; and links shown as text and URL, never as an OSC 8 hyperlink.
 */
import {describe, expect, it} from 'vitest'
import {renderMarkdown, renderMarkdownAnsi} from '../../../src/cli/render/markdown.js'
import {plainText, themeFromEnv} from '../../../src/cli/render/style.js'
import {lineWidth} from '../../../src/cli/render/wrap.js'

const DARK = themeFromEnv({KB_THEME: 'dark'})
const LIGHT = themeFromEnv({KB_THEME: 'light'})
const visible = (s: string): string => s.replace(/\u001b/g, '⎋')
const plain = (md: string, width = 80): string => renderMarkdown(md, {width, theme: DARK}).map(plainText).join('\n')

const LONG =
  'When two processes open the SQLite store at once, the second one waits for the lock and then fails with SQLITE_BUSY; the daemon is the only process that may open it, so every other path goes through the HTTP API and never sees "database is locked".'

const CONSTRUCTS: [string, string][] = [
  ['headings', '# Port 7411 already in use\n\n## Root cause\n\n### On macOS\n\n#### Deeper still'],
  ['emphasis and inline code', 'Plain, *italic*, **bold**, ***both***, ~~struck~~ and `kb daemon stop` inline.'],
  ['a paragraph wrapped, line breaks kept', `${LONG}\nA second line of the same paragraph.`],
  ['bullet lists, nested, with hanging indents', `- one\n- two\n  - nested\n    - deeper\n- ${LONG}`],
  ['ordered lists', '9. nine\n10. ten\n11. eleven, whose text runs on long enough to wrap under its own start and not under the number'],
  ['a loose list', '- first paragraph\n\n  second paragraph of the item\n\n- another item'],
  ['block quotes, nested', `> quoted **text**\n> ${LONG}\n>\n> > nested quote`],
  [
    'a table with alignment',
    '| Option | Default | Meaning |\n|:--|:-:|--:|\n| `--port` | 7411 | the port the daemon listens on |\n| `--host` | 127.0.0.1 | loopback only |',
  ],
  [
    'a table wider than the terminal',
    `| Error | Cause | Fix |\n|---|---|---|\n| SQLITE_BUSY | ${LONG} | Stop the other process, then run \`kb daemon start\` again and check \`kb daemon logs\`. |`,
  ],
  [
    'a table of many columns',
    `| ${Array.from({length: 30}, (_, i) => `c${i}`).join(' | ')} |\n|${'---|'.repeat(30)}\n| ${Array.from({length: 30}, (_, i) => `v${i}`).join(' | ')} |`,
  ],
  ['shell', '```sh\n# who holds the port\nlsof -iTCP:7411 -sTCP:LISTEN\nkb daemon stop && kb daemon start --port "$PORT"\n```'],
  [
    'TypeScript',
    "```ts\ninterface Port { n: number }\nexport async function listen(port: number): Promise<void> {\n  await server.listen({port, host: '127.0.0.1'}) // loopback\n}\n```",
  ],
  ['JavaScript', "```js\nconst db = require('better-sqlite3')('kb.db')\ndb.pragma('journal_mode = WAL')\n```"],
  ['Python', '```python\ndef retry(fn, times=3):\n    """Retry on busy."""\n    for i in range(times):\n        return fn()\n```'],
  ['Go', '```go\nfunc main() {\n\tif err := run(); err != nil {\n\t\tlog.Fatal(err)\n\t}\n}\n```'],
  ['SQL', "```sql\nSELECT id, title FROM entries WHERE status = 'open' ORDER BY updated_at DESC LIMIT 20;\n```"],
  ['JSON', '```json\n{"port": 7411, "host": "127.0.0.1", "tags": ["daemon"], "ok": true, "none": null}\n```'],
  ['YAML', '```yaml\nservices:\n  kb:\n    image: kb:latest # pinned\n    ports: ["7411:7411"]\n```'],
  [
    'diff',
    '```diff\n--- a/daemon.ts\n+++ b/daemon.ts\n@@ -1,2 +1,2 @@\n-const port = 7411\n+const port = Number(process.env.KB_PORT ?? 7411)\n```',
  ],
  ['code without a language, and indented code', '```\nplain fenced code\n```\n\n    indented code\n    block'],
  ['a code line longer than the terminal', `\`\`\`\n${'x'.repeat(150)}\n\`\`\``],
  [
    'links and images',
    'See [the docs](https://example.com/docs?x=1), <https://example.com/auto>, [https://example.com/same](https://example.com/same), <ops@example.com> and ![a diagram](https://example.com/d.png "Diagram").',
  ],
  ['a rule', 'above\n\n---\n\nbelow'],
  ['raw HTML stays literal text', '<div onclick="x()">block</div>\n\nInline <b>bold</b> and <script>alert(1)</script>.'],
  ['wide characters', '数据库被锁定：两个进程同时打开了存储 🚀 and café with combining e\u0301, wrapped by display width. '.repeat(3)],
]

describe.each([80, 120])('at %i columns', (width) => {
  it.each(CONSTRUCTS)('%s', (_, md) => {
    for (const line of renderMarkdown(md, {width, theme: DARK})) expect(lineWidth(line)).toBeLessThanOrEqual(width)
    expect(visible(renderMarkdownAnsi(md, {width, theme: DARK}))).toMatchSnapshot()
  })
})

describe('the renderer', () => {
  it('never draws a line wider than asked, at any width from 2 (a wide character) to 140', () => {
    const all = CONSTRUCTS.map(([, md]) => md).join('\n\n')
    for (let width = 2; width <= 140; width++)
      for (const line of renderMarkdown(all, {width, theme: DARK})) expect(lineWidth(line), `at ${width}`).toBeLessThanOrEqual(width)
  })

  it('shows headings by weight and colour, code without fences, links as text and URL', () => {
    const text = plain(CONSTRUCTS.map(([, md]) => md).join('\n\n'), 300)
    expect(text).not.toMatch(/^#+ /m)
    expect(text).not.toContain('```')
    expect(text).not.toContain('**')
    expect(text).toContain('the docs (https://example.com/docs?x=1)')
    // A link whose text is its URL shows it once.
    expect(text).toContain(', https://example.com/auto, https://example.com/same, ops@example.com and')
    expect(text).toContain('a diagram (image: https://example.com/d.png)')
    expect(renderMarkdownAnsi('# Title', {width: 80, theme: DARK})).toBe('\u001b[1;4;95mTitle\u001b[0m')
  })

  it('colours code with the theme: keywords, strings and comments differ from plain text', () => {
    const ts = renderMarkdown("```ts\nconst a = 'x' // note\n```", {width: 80, theme: DARK})[0]!
    expect(ts.find((s) => s.text === 'const')?.color).toBe('magentaBright')
    expect(ts.find((s) => s.text === "'x'")?.color).toBe('greenBright')
    expect(ts.find((s) => s.text === '// note')).toMatchObject({color: 'gray', italic: true})
    const light = renderMarkdown("```ts\nconst a = 'x'\n```", {width: 80, theme: LIGHT})[0]!
    expect(light.find((s) => s.text === 'const')?.color).toBe('magenta')
  })

  it('keeps every character of the code, in every language and past the pieces a long block is coloured in', () => {
    for (const [, md] of CONSTRUCTS.filter(([, m]) => /^```\w/.test(m))) {
      const code = md.slice(md.indexOf('\n') + 1, md.lastIndexOf('\n```')).replace(/\t/g, '    ')
      const lines = renderMarkdown(md, {width: 300, theme: DARK}).map((l) => plainText(l).replace(/^│ ?/, ''))
      expect(lines.join('\n')).toBe(code)
    }
    // 60 lines of 50 characters: more than one piece (2,000 characters); the last line is coloured all the same.
    const long = `${"const a = 'x' // a line of about fifty characters\n".repeat(60)}return 1`
    const lines = renderMarkdown(`\`\`\`ts\n${long}\n\`\`\``, {width: 80, theme: DARK})
    expect(lines.map((l) => plainText(l).slice(2)).join('\n')).toBe(long)
    for (const line of [lines[0]!, lines[45]!]) expect(line.find((s) => s.text === 'const')?.color).toBe('magentaBright')
    expect(lines[60]!.find((s) => s.text === 'return')?.color).toBe('magentaBright')
  })

  it('follows KB_THEME, else the background COLORFGBG names, else dark', () => {
    expect(themeFromEnv({KB_THEME: 'light'}).name).toBe('light')
    expect(themeFromEnv({KB_THEME: 'dark', COLORFGBG: '0;15'}).name).toBe('dark')
    expect(themeFromEnv({COLORFGBG: '0;15'}).name).toBe('light')
    expect(themeFromEnv({COLORFGBG: '0;default;7'}).name).toBe('light')
    expect(themeFromEnv({COLORFGBG: '15;0'}).name).toBe('dark')
    expect(themeFromEnv({COLORFGBG: '15;8'}).name).toBe('dark')
    expect(themeFromEnv({}).name).toBe('dark')
    // Without colours (kb browse under NO_COLOR): no colour at all, inline code keeps its backticks.
    const mono = themeFromEnv({NO_COLOR: '1', KB_THEME: 'light'})
    expect(mono.name).toBe('mono')
    expect(themeFromEnv({TERM: 'dumb'}).name).toBe('mono')
    expect(themeFromEnv({NO_COLOR: ''}).name).toBe('dark')
    const out = renderMarkdownAnsi('# T\n\nRun `kb daemon stop`.\n\n```ts\nconst a = 1\n```', {width: 80, theme: mono})
    expect(out).not.toMatch(/\u001b\[[0-9;]*(3[0-7]|9[0-7])m/)
    expect(visible(out)).toBe('⎋[1;4mT⎋[0m\n\nRun `kb daemon stop`.\n\n│ const a = 1')
  })

  it('keeps a line break of the source as one, as GitHub does for issues and comments', () => {
    expect(plain('first line\nsecond line')).toBe('first line\nsecond line')
  })
})
