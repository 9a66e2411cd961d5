/**
 * @module `kb agent install claude-code --recall`: kb's `UserPromptSubmit` hook in Claude Code's settings
 * (`.claude/settings.json` of the project, `~/.claude/settings.json` with --user), which runs
 * `kb recall --hook claude-code` on every prompt (docs/agents.md, "Recall on every prompt"). Only kb's matcher
 * group changes, through jsonc-parser's edits: other hooks, permissions and the file's layout stay as written.
 */
import {applyEdits, findNodeAtLocation, modify, parse, parseTree, printParseErrorCode, type Node, type ParseError} from 'jsonc-parser'
import {homedir} from 'node:os'
import {join} from 'node:path'
import {deepEqual, isPlainObject, lineColumn, unreadable} from './edit.js'
import {formattingOf, insertProperty, removeProperty} from './json-config.js'
import type {ServerSpec} from './tools.js'

const EVENT = 'UserPromptSubmit'
/** Seconds Claude Code waits for the hook; kb gives up after 0.9 s by itself, this only bounds a stuck process. */
const TIMEOUT_S = 5
/** What marks a hook as kb's, whatever program runs kb. */
const KB_RECALL = /(^|[\s'"/])(kb|run\.js)['"]?\s+recall\s+--hook\s+claude-code\b/

/** Claude Code's settings file at a scope. */
export function claudeSettingsPath(scope: 'project' | 'user', root: string): string {
  return scope === 'project' ? join(root, '.claude', 'settings.json') : join(homedir(), '.claude', 'settings.json')
}

/** A word as the shell reads it back: bare when it is safe, else in single quotes. */
function shellWord(w: string): string {
  return /^[A-Za-z0-9@%+=:,./_-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`
}

/** The hook's command line: the program and leading words that run kb (as for `kb mcp`), then `recall --hook claude-code`. */
export function recallCommand(server: ServerSpec): string {
  const words = server.kind === 'stdio' ? [server.command, ...server.args.slice(0, server.args.indexOf('mcp'))] : ['kb']
  const rest = server.kind === 'stdio' ? server.args.slice(server.args.indexOf('mcp') + 1) : []
  return [...words, 'recall', '--hook', 'claude-code', ...rest].map(shellWord).join(' ')
}

type Group = {matcher?: string; hooks?: Array<Record<string, unknown>>}

function isKbGroup(g: unknown): boolean {
  if (!isPlainObject(g) || !Array.isArray(g.hooks)) return false
  return g.hooks.some((h) => isPlainObject(h) && typeof h.command === 'string' && KB_RECALL.test(h.command))
}

function load(file: string, text: string): Record<string, unknown> {
  if (text.trim() === '') return {}
  const errors: ParseError[] = []
  const value: unknown = parse(text, errors, {allowTrailingComma: true})
  if (errors.length > 0)
    throw unreadable(file, lineColumn(text, errors[0]!.offset), `not valid JSON (${printParseErrorCode(errors[0]!.error)})`)
  if (!isPlainObject(value)) throw unreadable(file, null, 'expected a JSON object at the top')
  if (value.hooks !== undefined && !isPlainObject(value.hooks)) throw unreadable(file, null, '"hooks" is not an object')
  if (isPlainObject(value.hooks) && value.hooks[EVENT] !== undefined && !Array.isArray(value.hooks[EVENT]))
    throw unreadable(file, null, `"hooks.${EVENT}" is not an array`)
  return value
}

/** The event's groups with kb's own taken out. */
function othersOf(doc: Record<string, unknown>): Group[] {
  const groups = isPlainObject(doc.hooks) && Array.isArray(doc.hooks[EVENT]) ? (doc.hooks[EVENT] as Group[]) : []
  return groups.filter((g) => !isKbGroup(g))
}

/** `text` with the JSON value at `node` replaced by `value`, printed over lines indented like the line it starts on. */
function replaceValue(text: string, node: Node, value: unknown): string {
  const f = formattingOf(text)
  const unit = f.insertSpaces ? ' '.repeat(f.tabSize ?? 2) : '\t'
  const indent = /^[ \t]*/.exec(text.slice(text.lastIndexOf('\n', node.offset - 1) + 1))![0]
  const printed = JSON.stringify(value, null, unit)
    .split('\n')
    .join((f.eol ?? '\n') + indent)
  return text.slice(0, node.offset) + printed + text.slice(node.offset + node.length)
}

/**
 * The settings text (null: no file) with kb's hook running `command`; the text itself when it already does. A new
 * event or `hooks` goes in as lines of their own (the rest byte for byte); an event that has other hooks is
 * printed again with kb's group last.
 */
export function withRecallHook(file: string, text: string | null, command: string): string {
  const source = text ?? ''
  const doc = load(file, source)
  const current = isPlainObject(doc.hooks) ? doc.hooks[EVENT] : undefined
  const want = [...othersOf(doc), {hooks: [{type: 'command', command, timeout: TIMEOUT_S}]}]
  if (deepEqual(current, want)) return source
  if (source.trim() === '') return `${JSON.stringify({hooks: {[EVENT]: want}}, null, 2)}\n`
  const tree = parseTree(source, [], {allowTrailingComma: true})!
  const hooks = findNodeAtLocation(tree, ['hooks'])
  const event = findNodeAtLocation(tree, ['hooks', EVENT])
  const f = formattingOf(source)
  const out = event
    ? replaceValue(source, event, want)
    : hooks
      ? insertProperty(source, hooks, EVENT, want, f)
      : insertProperty(source, tree, 'hooks', {[EVENT]: want}, f)
  return out ?? applyEdits(source, modify(source, ['hooks', EVENT], want, {}))
}

/** The settings text without kb's hook (an event, or `hooks`, left empty goes too); null when nothing is left. */
export function withoutRecallHook(file: string, text: string): string | null {
  const doc = load(file, text)
  const current = isPlainObject(doc.hooks) ? doc.hooks[EVENT] : undefined
  if (!Array.isArray(current) || !current.some(isKbGroup)) return text
  const others = othersOf(doc)
  const tree = parseTree(text, [], {allowTrailingComma: true})!
  let out: string | null
  if (others.length > 0) out = replaceValue(text, findNodeAtLocation(tree, ['hooks', EVENT])!, others)
  else {
    const hooks = findNodeAtLocation(tree, ['hooks'])!
    // kb's was the only hook of all: `hooks` goes, as an install into a file without it added it.
    out = hooks.children?.length === 1 ? removeProperty(text, tree, 'hooks') : removeProperty(text, hooks, EVENT)
    out ??= applyEdits(text, modify(text, hooks.children?.length === 1 ? ['hooks'] : ['hooks', EVENT], undefined, {}))
  }
  return deepEqual(load(file, out), {}) ? null : out
}
