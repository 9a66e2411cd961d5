/**
 * @module kb's entry in a JSON or JSON-with-comments MCP config (.mcp.json, ~/.claude.json, .cursor/mcp.json,
 * .vscode/mcp.json) through Microsoft's jsonc-parser: `modify` + `applyEdits` change only the bytes of kb's
 * entry, so other servers, comments and the file's indentation stay as written.
 */
import {applyEdits, findNodeAtLocation, modify, parse, parseTree, printParseErrorCode, stripComments} from 'jsonc-parser'
import type {FormattingOptions, Node, ParseError} from 'jsonc-parser'
import {deepEqual, isPlainObject, lineColumn, unreadable, type ConfigEditor} from './edit.js'
import {MANAGED_KEYS} from './tools.js'

const NAME = 'kb'

/** The whitespace before `offset` on its line, or null when something else stands there. */
function indentBefore(text: string, offset: number): string | null {
  const start = text.lastIndexOf('\n', offset - 1) + 1
  const lead = text.slice(start, offset)
  return /^[ \t]*$/.test(lead) ? lead : null
}

/** From the end of a value: its comma (if any) and where its line ends, when only a comment stands between. */
function restOfLine(text: string, end: number): {comma: number | null; eol: number} | null {
  let i = end
  const blanks = (): void => {
    while (text[i] === ' ' || text[i] === '\t') i++
  }
  blanks()
  const comma = text[i] === ',' ? i++ : null
  blanks()
  if (text.startsWith('//', i)) while (i < text.length && text[i] !== '\n' && text[i] !== '\r') i++
  else if (text.startsWith('/*', i)) {
    const close = text.indexOf('*/', i + 2)
    if (close === -1 || /[\r\n]/.test(text.slice(i, close))) return null
    i = close + 2
    blanks()
  }
  return i === text.length || text[i] === '\n' || text[i] === '\r' ? {comma, eol: i} : null
}

/**
 * `text` with `"key": value` added as the last property of `obj`, on its own lines, indented like its
 * siblings; null when the object is not laid out one property a line (the caller then lets jsonc-parser do it).
 */
export function insertProperty(text: string, obj: Node, key: string, value: unknown, f: FormattingOptions): string | null {
  const unit = f.insertSpaces ? ' '.repeat(f.tabSize ?? 2) : '\t'
  const eol = f.eol ?? '\n'
  const pretty = (indent: string): string =>
    `${JSON.stringify(key)}: ${JSON.stringify(value, null, unit)
      .split('\n')
      .join(eol + indent)}`
  const props = obj.children ?? []
  const last = props[props.length - 1]
  if (!last) {
    const close = obj.offset + obj.length - 1
    if (text.slice(obj.offset + 1, close).trim() !== '') return null
    const indent = /^[ \t]*/.exec(text.slice(text.lastIndexOf('\n', obj.offset) + 1))![0]
    return `${text.slice(0, obj.offset + 1)}${eol}${indent}${unit}${pretty(indent + unit)}${eol}${indent}${text.slice(close)}`
  }
  const indent = indentBefore(text, last.offset)
  const rest = restOfLine(text, last.offset + last.length)
  if (indent === null || rest === null) return null
  const piece = `${eol}${indent}${pretty(indent)}${rest.comma === null ? '' : ','}`
  const at = last.offset + last.length
  if (rest.comma !== null) return text.slice(0, rest.eol) + piece + text.slice(rest.eol)
  return `${text.slice(0, at)},${text.slice(at, rest.eol)}${piece}${text.slice(rest.eol)}`
}

/** `text` without property `key` of `obj`, its lines removed whole; null when it does not stand on lines of its own. */
export function removeProperty(text: string, obj: Node, key: string): string | null {
  const props = obj.children ?? []
  const idx = props.findIndex((p) => p.children?.[0]?.value === key)
  const p = props[idx]
  if (!p) return text
  const end = p.offset + p.length
  const close = obj.offset + obj.length - 1
  if (props.length === 1) {
    const around = text.slice(obj.offset + 1, p.offset) + text.slice(end, close).replace(',', '')
    return around.trim() === '' ? `${text.slice(0, obj.offset)}{}${text.slice(close + 1)}` : null
  }
  const rest = restOfLine(text, end)
  // Only a property alone on its lines, with nothing but its comma after it, is cut out whole.
  if (indentBefore(text, p.offset) === null || rest === null) return null
  if (text.slice(rest.comma === null ? end : rest.comma + 1, rest.eol).trim() !== '') return null
  const from = text.lastIndexOf('\n', p.offset - 1) + 1
  const to = text.startsWith('\r\n', rest.eol) ? rest.eol + 2 : rest.eol + 1
  let out = text.slice(0, from) + text.slice(to)
  // The last property leaves: the one before it loses its comma (unless every property has one, a trailing-comma style).
  if (idx === props.length - 1 && rest.comma === null) {
    const prev = props[idx - 1]!
    const before = restOfLine(out, prev.offset + prev.length)
    if (before?.comma != null) out = out.slice(0, before.comma) + out.slice(before.comma + 1)
  }
  return out
}

/** The file's own indentation and line ends, so inserted lines look like their neighbours. */
export function formattingOf(text: string): FormattingOptions {
  const eol = text.includes('\r\n') ? '\r\n' : '\n'
  const indent = /^([ \t]+)["/}\]]/m.exec(text)?.[1]
  if (indent?.startsWith('\t')) return {insertSpaces: false, tabSize: 1, eol}
  return {insertSpaces: true, tabSize: indent ? indent.length : 2, eol}
}

export function jsonEditor(file: string, serversKey: string, comments: boolean): ConfigEditor {
  const what = comments ? 'JSON with comments' : 'JSON'

  /** The document, refused with the first error's line and column; null when the file is empty. */
  const load = (text: string): Record<string, unknown> | null => {
    if (text.trim() === '') return null
    const errors: ParseError[] = []
    const value: unknown = parse(text, errors, {allowTrailingComma: comments, disallowComments: !comments})
    if (errors.length > 0) {
      const e = errors[0]!
      throw unreadable(file, lineColumn(text, e.offset), `not valid ${what} (${printParseErrorCode(e.error)})`)
    }
    if (!isPlainObject(value)) throw unreadable(file, lineColumn(text, text.search(/\S/)), `expected a JSON object at the top`)
    const servers = value[serversKey]
    if (servers !== undefined && !isPlainObject(servers)) {
      const node = findNodeAtLocation(parseTree(text, [], {allowTrailingComma: comments})!, [serversKey])
      throw unreadable(file, node ? lineColumn(text, node.offset) : null, `"${serversKey}" is not an object`)
    }
    return value
  }

  /** `out`, once it is shown to hold `want` as kb's entry and everything else of `text` unchanged. */
  const checked = (text: string, out: string, want: unknown): string => {
    const strip = (doc: Record<string, unknown> | null): unknown => {
      const servers = {...(doc?.[serversKey] as Record<string, unknown> | undefined)}
      delete servers[NAME]
      return {...doc, [serversKey]: servers}
    }
    const after = load(out)
    const entry = (after?.[serversKey] as Record<string, unknown> | undefined)?.[NAME]
    if (!deepEqual(strip(after), strip(load(text))) || !deepEqual(entry, want))
      throw unreadable(file, null, `kb could not change its entry without touching the rest; edit "${serversKey}" by hand`)
    return out
  }

  const read = (text: string): unknown => {
    const servers = load(text)?.[serversKey]
    return isPlainObject(servers) ? servers[NAME] : undefined
  }

  return {
    read,
    set(text, entry) {
      const doc = text === null ? null : load(text)
      if (text === null || doc === null) return `${JSON.stringify({[serversKey]: {[NAME]: entry}}, null, 2)}\n`
      const current = read(text)
      const options = {formattingOptions: formattingOf(text)}
      if (current === undefined) {
        // A new entry goes in as lines of its own; jsonc-parser's formatter would re-flow its neighbours' line.
        const tree = parseTree(text, [], {allowTrailingComma: comments})!
        const servers = findNodeAtLocation(tree, [serversKey])
        const out = servers
          ? insertProperty(text, servers, NAME, entry, options.formattingOptions)
          : insertProperty(text, tree, serversKey, {[NAME]: entry}, options.formattingOptions)
        return checked(text, out ?? applyEdits(text, modify(text, [serversKey, NAME], entry, {})), entry)
      }
      if (!isPlainObject(current)) return checked(text, applyEdits(text, modify(text, [serversKey, NAME], entry, options)), entry)
      // Only the keys kb writes change; a person's additions (env, headers, timeouts) stay.
      let out = text
      for (const key of MANAGED_KEYS) {
        if (deepEqual(current[key], entry[key])) continue
        out = applyEdits(out, modify(out, [serversKey, NAME, key], entry[key], options))
      }
      const kept = Object.fromEntries(Object.entries(current).filter(([k]) => !(MANAGED_KEYS as readonly string[]).includes(k)))
      return checked(text, out, {...kept, ...entry})
    },
    remove(text) {
      if (read(text) === undefined) return text
      const tree = parseTree(text, [], {allowTrailingComma: comments})!
      const servers = findNodeAtLocation(tree, [serversKey])!
      // kb was the only server: the servers object goes too (an install into a file without one added it).
      const alone = servers.children?.length === 1
      const cut = alone ? removeProperty(text, tree, serversKey) : removeProperty(text, servers, NAME)
      const out = checked(text, cut ?? applyEdits(text, modify(text, alone ? [serversKey] : [serversKey, NAME], undefined, {})), undefined)
      // Nothing left of anyone else's: the file goes, as it came.
      if (deepEqual(load(out), null) || (deepEqual(parse(out), {}) && stripComments(out) === out)) return null
      return out
    },
  }
}
