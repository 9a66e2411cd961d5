/**
 * Hostile Markdown through the terminal renderer stays inert: escape sequences (CSI, OSC 8 links, OSC 52
 * clipboard writes, DCS), C1 controls, bidirectional overrides and entity-encoded controls, inside code
 * blocks, link text, URLs, titles, table cells, headings and images, leave no escape sequence but the
 * renderer's own SGR codes, and no OSC at all. And the renderer stays linear: 100,000 characters of
 * pathological Markdown render in under 2 s, and 200,000 take about four times as long as 50,000, not sixteen.
 */
import {describe, expect, it} from 'vitest'
import {renderMarkdown, renderMarkdownAnsi} from '../../../src/cli/render/markdown.js'
import {plainText, themeFromEnv} from '../../../src/cli/render/style.js'

const ESC = '\u001b'
const BEL = '\u0007'
const THEME = themeFromEnv({KB_THEME: 'dark'})
/** Every trick at once, around the word "zebra" that must survive. */
const EVIL = `zebra ${ESC}]52;c;cm0gLXJmIH4=${BEL}${ESC}]8;;https://evil.example${ESC}\\click${ESC}]8;;${ESC}\\ ${ESC}[2J${ESC}[H\u009b31mC1\u009d0;title${BEL}${ESC}P1$qm${ESC}\\\u202eevil\u202c end`

const HOSTILE: [string, string][] = [
  ['a paragraph', EVIL],
  ['a fenced code block with a language', `\`\`\`sh\necho ${EVIL}\n\`\`\``],
  ['a fenced code block without one', `\`\`\`\n${EVIL}\n\`\`\``],
  ['an info string', `\`\`\`${ESC}]8;;https://evil.example${ESC}\\ts\nlet a = 1\n\`\`\``],
  ['inline code', `\`${EVIL}\``],
  ['link text', `[${EVIL}](https://example.com)`],
  ['a link URL', `[text](https://example.com/${ESC}]8;;https://evil.example${ESC}\\)`],
  ['a percent-encoded URL', '[text](https://example.com/%1B%5D8;;https://evil.example%1B%5C%9B2J)'],
  ['a link title', `[text](https://example.com "${EVIL}")`],
  ['an image', `![${EVIL}](https://example.com/${ESC}[2J.png "${EVIL}")`],
  ['a heading', `# ${EVIL}`],
  ['a table cell', `| a | b |\n|---|---|\n| ${EVIL} | \`${EVIL}\` |`],
  ['a block quote and a list', `> ${EVIL}\n\n- ${EVIL}\n  1. ${EVIL}`],
  ['entity-encoded controls', '&#27;]8;;https://evil.example&#27;\\x &#x1b;[2J &#155;31m &#x9d;0;t&#7; &#x202e;rev'],
  ['raw HTML', `<a href="https://evil.example">${EVIL}</a>\n\n<div>${EVIL}</div>`],
  ['a javascript: link', `[click](javascript:alert(1)) [data](data:text/html;base64,PHNjcmlwdD4=)`],
]

/** The escape sequences the renderer builds: SGR, with only the parameters of its styles and colours. */
const OWN_SGR = /\u001b\[(?:0|(?:[1-49]|3[0-7]|9[0-7])(?:;(?:[1-49]|3[0-7]|9[0-7]))*)m/g

function leftovers(out: string): string[] {
  const rest = out.replace(OWN_SGR, '')
  return [...rest.matchAll(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g)].map(
    (m) => `U+${m[0].codePointAt(0)!.toString(16).padStart(4, '0')} at ${m.index}`,
  )
}

describe('hostile Markdown stays inert', () => {
  it.each(HOSTILE)('in %s', (_, md) => {
    for (const width of [20, 80, 120]) {
      const out = renderMarkdownAnsi(md, {width, theme: THEME})
      expect(leftovers(out)).toEqual([])
      expect(out).not.toContain(`${ESC}]`)
      expect(out).not.toContain('\u009d')
      expect(out).not.toContain('52;c;')
    }
  })

  it('keeps the words around the escapes, and shows no link the entry hid', () => {
    // Raw HTML is shown as written, its href included, and so is what follows an entity-encoded ESC (which
    // becomes U+FFFD): text to read, not a link.
    const text = renderMarkdown(
      HOSTILE.filter(([what]) => !['raw HTML', 'entity-encoded controls'].includes(what))
        .map(([, md]) => md)
        .join('\n\n'),
      {width: 300, theme: THEME},
    )
      .map(plainText)
      .join('\n')
    expect(text).toContain('zebra')
    expect(text).toContain('click')
    expect(text).not.toContain('evil.example')
    // Not links (markdown-it refuses javascript: and data: URLs): shown as the text written.
    expect(text).toContain('[click](javascript:alert(1))')
  })
})

describe('linear time', () => {
  const SHAPES: [string, (n: number) => string][] = [
    ['nested brackets', (n) => '['.repeat(n)],
    ['emphasis markers', (n) => '*a_'.repeat(n / 3)],
    ['backticks', (n) => '`a``'.repeat(n / 4)],
    ['a table of many cells', (n) => `| a | b |\n|---|---|\n${'| x '.repeat(n / 4)}|`],
    ['a table of many rows', (n) => `| a | b |\n|---|---|\n${'| x | y |\n'.repeat(n / 10)}`],
    ['deep quotes and lists', (n) => `${'> '.repeat(n / 4)}x\n${'- '.repeat(n / 4)}y`],
    ['escape sequences', (n) => `${ESC}[`.repeat(n / 2)],
    ['a code block of escapes', (n) => `\`\`\`ts\n${`${ESC}]8;;x${BEL}`.repeat(n / 8)}\n\`\`\``],
    ['one long word', (n) => 'x'.repeat(n)],
    ['wide characters', (n) => '数据库'.repeat(n / 3)],
  ]

  // CPU time, not wall time: on cores shared with other work, waiting for a core is not the renderer's.
  const timed = (md: string): number => {
    const t = process.cpuUsage()
    renderMarkdown(md, {width: 80, theme: THEME})
    const d = process.cpuUsage(t)
    return (d.user + d.system) / 1000
  }

  it.each(SHAPES)('%s: 100,000 characters in under 2 s, and 200,000 in about four times the time of 50,000', (_, make) => {
    const hundred = make(100_000)
    timed(hundred) // warm up
    expect(Math.min(timed(hundred), timed(hundred))).toBeLessThan(2_000)
    // Sizes where the garbage collector's work has settled; best of three, as other work shares the cores.
    const quarter = make(50_000)
    const full = make(200_000)
    const a = Math.min(timed(quarter), timed(quarter), timed(quarter))
    const b = Math.min(timed(full), timed(full), timed(full))
    // Linear is 4×, quadratic 16×: the bound between leaves room for a busy machine (and a few ms for the fast ones).
    expect(b).toBeLessThan(10 * a + 50)
  })
})

describe('highlighting stays linear', () => {
  // Runs that some grammars' patterns rescan from each of their positions (an identifier before `(`, a regular
  // expression literal after blanks, a string's backslashes): quadratic in the run's length unless a block is
  // highlighted in bounded pieces (src/cli/render/highlight.ts).
  const RUNS = ['a', 'A', ' ', '\n', '$', '"\\', '/*', '1e-']
  const block = (fence: string, run: string, n: number): string => `\`\`\`${fence}\nx${run.repeat(n / run.length)} = (\n\`\`\``
  const timed = (md: string): number => {
    const t = process.cpuUsage()
    renderMarkdown(md, {width: 80, theme: THEME})
    const d = process.cpuUsage(t)
    return (d.user + d.system) / 1000
  }
  /** Best of two, for each run, added up. */
  const total = (fence: string, n: number): number =>
    RUNS.reduce((sum, run) => sum + Math.min(timed(block(fence, run, n)), timed(block(fence, run, n))), 0)

  it.each(['sh', 'ts', 'js', 'python', 'go', 'sql', 'json', 'yaml', 'diff'])(
    '%s: runs of 10,000 characters in about four times the time of 2,500, not sixteen',
    (fence) => {
      total(fence, 2_500) // warm up
      const a = total(fence, 2_500)
      const b = total(fence, 10_000)
      expect(b).toBeLessThan(8 * a + 20)
    },
  )
})
