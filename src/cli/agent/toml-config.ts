/**
 * @module kb's `[mcp_servers.kb]` table in Codex's config.toml, edited as text: the table's own lines are
 * rewritten (keys kb does not manage kept), `[mcp_servers.kb.*]` sub-tables and everything else stay byte
 * for byte. smol-toml validates the file first (a refusal names the line and column) and checks the result:
 * the edit must leave every other value as it was, or nothing is written.
 */
import {parse, TomlError} from 'smol-toml'
import {deepEqual, isPlainObject, managedEqual, unreadable, type ConfigEditor} from './edit.js'
import {MANAGED_KEYS} from './tools.js'

const PATH = ['mcp_servers', 'kb']
/** The longest statement (a multi-line array or string) read as one, to keep the work bounded. */
const MAX_STATEMENT_LINES = 200

/** A TOML string or array of strings, as a basic string TOML and JSON share (DEL escaped, which TOML needs). */
function tomlValue(v: unknown): string {
  const str = (s: string): string => JSON.stringify(s).replace(/\u007f/g, '\\u007f')
  if (Array.isArray(v)) return `[${v.map((x) => str(String(x))).join(', ')}]`
  return str(String(v))
}

/** The dotted key of a `[table]` header line, unquoted; null when the line is not a table header. */
function headerKey(line: string): string[] | null {
  const m = /^\s*\[(?!\[)(.*)\]\s*(?:#.*)?$/.exec(line)
  if (!m) return null
  const parts: string[] = []
  const re = /\s*(?:"((?:[^"\\]|\\.)*)"|'([^']*)'|([A-Za-z0-9_-]+))\s*(\.|$)/y
  const text = m[1]!
  re.lastIndex = 0
  while (re.lastIndex < text.length) {
    const p = re.exec(text)
    if (!p) return null
    parts.push(p[1] !== undefined ? (JSON.parse(`"${p[1]}"`) as string) : (p[2] ?? p[3]!))
    if (p[4] === '') break
  }
  return parts
}

const underKb = (key: string[] | null): boolean => key !== null && key.length >= 2 && key[0] === PATH[0] && key[1] === PATH[1]
const isKbTable = (key: string[] | null): boolean => underKb(key) && key!.length === 2
const isArrayHeader = (line: string): boolean => /^\s*\[\[/.test(line)
const isFiller = (line: string): boolean => /^\s*(#.*)?$/.test(line)

/** The line ranges [start, end) of kb's tables, each without the blank and comment lines that lead into the next table. */
function kbSections(lines: string[]): {start: number; end: number; main: boolean}[] {
  const out: {start: number; end: number; main: boolean}[] = []
  let open: {start: number; main: boolean} | null = null
  const close = (at: number): void => {
    if (!open) return
    let end = at
    while (end > open.start + 1 && isFiller(lines[end - 1]!)) end--
    out.push({...open, end})
    open = null
  }
  lines.forEach((line, i) => {
    const key = isArrayHeader(line) ? [] : headerKey(line)
    if (key === null) return
    close(i)
    if (underKb(key)) open = {start: i, main: isKbTable(key)}
  })
  close(lines.length)
  return out
}

/** The statements of a table's body (one per key, a multi-line value as one) that kb does not manage. */
function keptStatements(body: string[]): string[] {
  const kept: string[] = []
  let i = 0
  while (i < body.length) {
    let j = i
    let parsed: Record<string, unknown> | null = null
    for (; j < body.length && j < i + MAX_STATEMENT_LINES; j++) {
      try {
        parsed = parse(body.slice(i, j + 1).join('\n'))
        break
      } catch {
        // not a whole statement yet
      }
    }
    if (parsed === null) return [...kept, ...body.slice(i)]
    const key = Object.keys(parsed)[0]
    if (key === undefined || !(MANAGED_KEYS as readonly string[]).includes(key)) kept.push(...body.slice(i, j + 1))
    i = j + 1
  }
  return kept
}

function kbOf(doc: Record<string, unknown>): unknown {
  const servers = doc[PATH[0]!]
  return isPlainObject(servers) ? servers[PATH[1]!] : undefined
}

/** The document without kb's entry, for checking that an edit touched nothing else. */
function withoutKb(doc: Record<string, unknown>): Record<string, unknown> {
  const servers = doc[PATH[0]!]
  if (!isPlainObject(servers)) return doc
  const {[PATH[1]!]: _kb, ...rest} = servers
  const {[PATH[0]!]: _servers, ...others} = doc
  // An [mcp_servers] that only held kb goes with it.
  return Object.keys(rest).length === 0 ? others : {...others, [PATH[0]!]: rest}
}

export function tomlEditor(file: string): ConfigEditor {
  const load = (text: string): Record<string, unknown> => {
    try {
      return parse(text)
    } catch (e) {
      if (e instanceof TomlError) throw unreadable(file, {line: e.line, column: e.column}, `not valid TOML (${e.message.split('\n')[0]})`)
      throw e
    }
  }
  const cannot = (): Error =>
    unreadable(file, null, "kb's entry is not written as a [mcp_servers.kb] table kb can change safely; edit or remove it by hand")

  return {
    read: (text) => kbOf(load(text)),
    set(text, entry) {
      const block = [`[${PATH.join('.')}]`, ...Object.entries(entry).map(([k, v]) => `${k} = ${tomlValue(v)}`)]
      if (text === null || text.trim() === '') return `${block.join('\n')}\n`
      const before = load(text)
      const current = kbOf(before)
      if (managedEqual(current, entry)) return text
      const eol = text.includes('\r\n') ? '\r\n' : '\n'
      const lines = text.split(/\r?\n/)
      const sections = kbSections(lines)
      const main = sections.find((s) => s.main)
      let out: string
      if (main) {
        const kept = keptStatements(lines.slice(main.start + 1, main.end))
        lines.splice(main.start, main.end - main.start, lines[main.start]!, ...block.slice(1), ...kept)
        out = lines.join(eol)
      } else if (sections.length > 0) {
        lines.splice(sections[0]!.start, 0, ...block)
        out = lines.join(eol)
      } else if (current !== undefined) {
        throw cannot()
      } else {
        out = `${text}${text.endsWith('\n') ? '' : eol}${eol}${block.join(eol)}${eol}`
      }
      const after = load(out)
      const kept = isPlainObject(current)
        ? Object.fromEntries(Object.entries(current).filter(([k]) => !(MANAGED_KEYS as readonly string[]).includes(k)))
        : {}
      const want = {...kept, ...entry}
      if (!deepEqual(withoutKb(after), withoutKb(before)) || !deepEqual(kbOf(after), want)) throw cannot()
      return out
    },
    remove(text) {
      const before = load(text)
      if (kbOf(before) === undefined) return text
      const lines = text.split(/\r?\n/)
      const sections = kbSections(lines)
      if (sections.length === 0) throw cannot()
      for (const s of [...sections].reverse()) {
        let start = s.start
        // The blank line kb put before its table goes with it, when no other blank line would close up.
        const atEnd = lines.slice(s.end).every((l) => l === '')
        if (start > 0 && lines[start - 1] === '' && (atEnd || lines[s.end] === '')) start--
        lines.splice(start, s.end - start)
      }
      const out = lines.join(text.includes('\r\n') ? '\r\n' : '\n')
      if (!deepEqual(withoutKb(load(out)), withoutKb(before)) || kbOf(load(out)) !== undefined) throw cannot()
      return out.trim() === '' ? null : out
    },
  }
}
