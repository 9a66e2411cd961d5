/**
 * @module The Markdown-to-text code that src/shared/markdown.ts replaced, kept only as the oracle of
 * test/shared/markdown.test.ts: the scanner must give the same text for any input. Its regular
 * expressions backtrack (cubic on `# a` + spaces + `b`, quadratic on runs of `[`, `<a`, `**a `), so
 * only short inputs may be fed to it.
 */

export function legacyFirstParagraph(markdown: string): string {
  const lines = markdown.replace(/\r\n?/g, '\n').split('\n')
  const paragraphs: Array<{text: string; kind: 'text' | 'heading' | 'code'}> = []
  let current: string[] = []
  let fence: string | null = null
  let code: string[] = []
  const flush = (): void => {
    if (current.length > 0) paragraphs.push({text: current.join(' '), kind: 'text'})
    current = []
  }
  for (const line of lines) {
    if (fence !== null) {
      if (line.trim().startsWith(fence)) {
        paragraphs.push({text: code.join(' '), kind: 'code'})
        fence = null
        code = []
      } else code.push(line)
      continue
    }
    const open = /^\s{0,3}(`{3,}|~{3,})/.exec(line)
    if (open) {
      flush()
      fence = open[1]!
      continue
    }
    if (line.trim() === '' || /^\s{0,3}([-*_])(\s*\1){2,}\s*$/.test(line)) {
      flush()
      continue
    }
    const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)
    if (heading) {
      flush()
      paragraphs.push({text: heading[1]!, kind: 'heading'})
      continue
    }
    if (/^\s{0,3}(=+|-+)\s*$/.test(line) && current.length > 0) {
      paragraphs.push({text: current.join(' '), kind: 'heading'})
      current = []
      continue
    }
    current.push(line.replace(/^\s{0,3}(?:>\s?)+/, ''))
  }
  flush()
  if (fence !== null && code.length > 0) paragraphs.push({text: code.join(' '), kind: 'code'})
  const order: Array<'text' | 'heading' | 'code'> = ['text', 'heading', 'code']
  for (const kind of order) {
    for (const p of paragraphs) {
      if (p.kind !== kind) continue
      const plain = kind === 'code' ? collapse(p.text) : legacyStripInline(p.text)
      if (plain !== '') return plain
    }
  }
  return collapse(markdown)
}

export function legacyStripInline(text: string): string {
  let s = text
  s = s.replace(/^\s{0,3}>\s?/gm, '')
  s = s.replace(/(^|\s)(?:[-*+]|\d{1,9}[.)])\s+/g, '$1')
  s = s.replace(/!\[([^\]]*)\]\([^)]*\)/g, '')
  s = s.replace(/!\[([^\]]*)\]\[[^\]]*\]/g, '')
  s = s.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
  s = s.replace(/\[([^\]]*)\]\[[^\]]*\]/g, '$1')
  s = s.replace(/<(https?:\/\/[^>\s]+)>/g, '$1')
  s = s.replace(/<\/?[A-Za-z][^>]*>/g, '')
  s = s.replace(/\*\*(?=\S)([\s\S]*?\S)\*\*/g, '$1')
  s = s.replace(/(^|[^\p{L}\p{N}_])__(?=\S)([\s\S]*?\S)__(?![\p{L}\p{N}_])/gu, '$1$2')
  s = s.replace(/\*(?=\S)([\s\S]*?\S)\*(?![A-Za-z0-9])/g, '$1')
  s = s.replace(/(^|[^\p{L}\p{N}_])_(?=\S)([\s\S]*?\S)_(?![\p{L}\p{N}_])/gu, '$1$2')
  s = s.replace(/~~(?=\S)([\s\S]*?\S)~~/g, '$1')
  s = s.replace(/`+([^`]*)`+/g, '$1')
  return collapse(s)
}

function collapse(text: string): string {
  return text.replace(/\s+/g, ' ').trim()
}
