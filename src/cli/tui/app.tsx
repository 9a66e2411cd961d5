/**
 * @module The `kb browse` screen: a search box, a results list, a detail pane (beside the list on wide
 * terminals, below it on narrow ones), a full view, prompts for the actions, a status line and a help
 * screen. Everything it shows comes from the kb API through the CLI's own `ApiClient`.
 */
import {Box, Text, useApp, useInput, useStdout} from 'ink'
import {useCallback, useEffect, useLayoutEffect, useRef, useState, type ReactElement} from 'react'
import {KbError} from '../../shared/errors.js'
import {hintFor} from '../../shared/hints.js'
import {COMMENT_TYPES, SCOPES, STATUSES} from '../../shared/contract.js'
import type {CommentType, EntryFull, EntryStandard, Scope, Status} from '../../shared/types.js'
import type {ApiClient} from '../../shared/client.js'
import {detailAction, helpSections, listAction, searchAction, type ListAction} from './keymap.js'
import {fit, fullLines, rowParts, standardLines} from './text.js'

export interface BrowseProps {
  client: ApiClient
  /** Initial query; when given, focus starts in the list. */
  query?: string
  scope?: Scope
  status?: Status
  projectId?: string | null
  /** ANSI colour (false under NO_COLOR): bold and inverse stay, colours go. */
  color?: boolean
  /** Opens a URL in the browser; false when none could be started. */
  openUrl: (url: string) => Promise<boolean>
  /** Copies text to the clipboard; returns where it went. */
  copy: (text: string) => Promise<string>
  /** Fixed screen size (tests); otherwise the terminal's, following resizes. */
  columns?: number
  rows?: number
  /** How many results a search or listing asks for. */
  limit?: number
}

type Focus = 'search' | 'list'
type Prompt =
  | {kind: 'resolve'; entry: EntryStandard; text: string}
  | {kind: 'comment'; entry: EntryStandard; text: string; type: CommentType}
  | {kind: 'fork'; entry: EntryStandard; text: string}
  | {kind: 'publish'; entry: EntryStandard; choice: number}
  | {kind: 'delete'; entry: EntryStandard}
type View = {kind: 'browse'} | {kind: 'help'} | {kind: 'full'; id: string; entry: EntryFull | null; scroll: number; error: string | null}
interface StatusLine {
  text: string
  tone: 'ok' | 'error' | 'info'
}

export const DEBOUNCE_MS = 150
export const LOADING_DELAY_MS = 100
/** Side by side from this width; below it the detail pane goes under the list. */
export const SIDE_BY_SIDE_MIN = 110

const SCOPE_CYCLE: (Scope | undefined)[] = [undefined, ...SCOPES]
const STATUS_CYCLE: (Status | undefined)[] = [undefined, ...STATUSES]
const ENTRY_ACTIONS = new Set<ListAction>(['resolve', 'comment', 'fork', 'publish', 'openUrl', 'copyId', 'delete'])

/** An error as one line for people: the message and what to do, never a stack trace. */
export function describeError(e: unknown): string {
  if (e instanceof KbError) {
    const fix = hintFor(e.code, 'tui')
    // Unreachable errors already name their fix (`kb daemon start`, --base-url).
    return fix && !e.message.includes(fix) ? `${e.message} — ${fix}` : e.message
  }
  return e instanceof Error ? e.message : String(e)
}

/** Keeps printable input: no escape sequences or control characters (a paste may hold newlines). */
function printable(input: string): string {
  // eslint-disable-next-line no-control-regex
  return input.replace(/\u001B\[[0-9;?]*[A-Za-z~]/g, '').replace(/[\u0000-\u001F\u007F]/g, ' ')
}

/**
 * State whose latest value is readable at once: keys may arrive faster than React commits (a fast
 * typist, a paste split in reads, tmux), and each key must see what the previous one did.
 */
function useSyncState<T>(initial: T): [T, (v: T) => void, () => T] {
  const [value, setValue] = useState(initial)
  const ref = useRef(value)
  const set = useCallback((v: T) => {
    ref.current = v
    setValue(v)
  }, [])
  const get = useCallback(() => ref.current, [])
  return [value, set, get]
}

function useScreenSize(fixed: {columns?: number; rows?: number}): {columns: number; rows: number} {
  const {stdout} = useStdout()
  const read = (): {columns: number; rows: number} => ({
    columns: fixed.columns ?? (stdout.columns > 0 ? stdout.columns : 80),
    rows: fixed.rows ?? (stdout.rows > 0 ? stdout.rows : 24),
  })
  const [size, setSize] = useState(read)
  useEffect(() => {
    const onResize = (): void => setSize(read())
    stdout.on('resize', onResize)
    return () => {
      stdout.off('resize', onResize)
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [stdout, fixed.columns, fixed.rows])
  return size
}

export function BrowseApp(props: BrowseProps): ReactElement {
  const {client, projectId, limit = 50} = props
  const color = props.color !== false
  const paint = (c: string): string | undefined => (color ? c : undefined)
  const {exit} = useApp()
  const {columns, rows} = useScreenSize(props)

  const [query, setQuery] = useState(props.query ?? '')
  const [focus, setFocus, getFocus] = useSyncState<Focus>(props.query ? 'list' : 'search')
  const [scope, setScope, getScope] = useSyncState<Scope | undefined>(props.scope)
  const [status, setStatus, getStatus] = useSyncState<Status | undefined>(props.status)
  const [items, setItems, getItems] = useSyncState<EntryStandard[]>([])
  const [total, setTotal] = useState(0)
  // The query the shown results answer (the box may already hold a newer one).
  const [shownQuery, setShownQuery] = useState('')
  const [loaded, setLoaded] = useState(false)
  const [loading, setLoading] = useState(false)
  const [loadError, setLoadError] = useState<string | null>(null)
  const [selected, setSelected, getSelected] = useSyncState(0)
  const [view, setView, getView] = useSyncState<View>({kind: 'browse'})
  const [prompt, setPrompt, getPrompt] = useSyncState<Prompt | null>(null)
  const [busy, setBusy, getBusy] = useSyncState(false)
  const [line, setLine] = useState<StatusLine | null>(null)
  const [tick, setTick] = useState(0)
  const seq = useRef(0)
  const firstLoad = useRef(true)

  // Layout: header, search box, rule, body…, status line, key line. The screen never grows past the
  // terminal (Ink would scroll and flicker), so every pane is cut to its share of lines.
  const bodyRows = Math.max(4, rows - 5)
  const side = columns >= SIDE_BY_SIDE_MIN
  const listWidth = side ? Math.floor(columns * 0.48) : columns
  const detailWidth = side ? columns - listWidth - 3 : columns
  const listRows = side ? bodyRows : Math.max(2, Math.floor((bodyRows - 1) / 2))
  const detailRows = side ? bodyRows : bodyRows - listRows - 1

  // Search as you type: debounced, and an answer to an older request is dropped.
  useEffect(() => {
    const mine = ++seq.current
    const delay = firstLoad.current ? 0 : DEBOUNCE_MS
    firstLoad.current = false
    let loadingTimer: NodeJS.Timeout | undefined
    const timer = setTimeout(() => {
      loadingTimer = setTimeout(() => {
        if (seq.current === mine) setLoading(true)
      }, LOADING_DELAY_MS)
      const filters = {...(scope ? {scope} : {}), ...(status ? {status} : {}), ...(projectId ? {project_id: projectId} : {}), detail: 'standard' as const, limit}
      const q = query.trim()
      const request = q === '' ? client.listEntries(filters).then((p) => ({items: p.items, total: p.items.length + (p.next_cursor ? 1 : 0), more: p.next_cursor !== null})) : client.search({...filters, q}).then((r) => ({items: r.items, total: r.total, more: false}))
      request.then(
        (r) => {
          if (seq.current !== mine) return
          clearTimeout(loadingTimer)
          const list = r.items as EntryStandard[]
          const selectedId = getItems()[getSelected()]?.id
          setItems(list)
          setTotal(r.more ? -1 : r.total)
          setShownQuery(q)
          setLoadError(null)
          setLoading(false)
          setLoaded(true)
          const keep = selectedId ? list.findIndex((e) => e.id === selectedId) : -1
          setSelected(keep >= 0 ? keep : Math.min(getSelected(), Math.max(0, list.length - 1)))
        },
        (e: unknown) => {
          if (seq.current !== mine) return
          clearTimeout(loadingTimer)
          setLoading(false)
          setLoaded(true)
          setLoadError(describeError(e))
        },
      )
    }, delay)
    return () => {
      clearTimeout(timer)
      clearTimeout(loadingTimer)
    }
  }, [client, query, scope, status, projectId, limit, tick])

  const current: EntryStandard | undefined = items[selected]

  // The list's window follows the selection in the same frame (an effect would draw one frame without it).
  const topRef = useRef(0)
  let top = topRef.current
  if (selected < top) top = selected
  else if (selected >= top + listRows) top = selected - listRows + 1
  top = Math.max(0, Math.min(top, items.length - listRows))
  topRef.current = top

  // The full view loads (and reloads after an action) the entry at `full`.
  const fullId = view.kind === 'full' ? view.id : null
  useEffect(() => {
    if (!fullId) return
    let live = true
    client.getEntry(fullId, 'full').then(
      ({entry}) => {
        const v = getView()
        if (live && v.kind === 'full' && v.id === fullId) setView({...v, entry: entry as EntryFull, error: null})
      },
      (e: unknown) => {
        const v = getView()
        if (live && v.kind === 'full' && v.id === fullId) setView({...v, error: describeError(e)})
      },
    )
    return () => {
      live = false
    }
  }, [client, fullId, tick])

  const refresh = useCallback(() => setTick((t) => t + 1), [])

  /** Runs an action against the API: its result or error goes to the status line, then the view refreshes. */
  const perform = useCallback(
    async (work: () => Promise<string>, after?: () => void): Promise<void> => {
      setBusy(true)
      try {
        setLine({tone: 'ok', text: await work()})
        after?.()
      } catch (e) {
        setLine({tone: 'error', text: describeError(e)})
      } finally {
        setBusy(false)
        setPrompt(null)
        refresh()
      }
    },
    [refresh],
  )

  const startAction = (action: ListAction, entry: EntryStandard): void => {
    setLine(null)
    switch (action) {
      case 'resolve':
        setPrompt({kind: 'resolve', entry, text: ''})
        return
      case 'comment':
        setPrompt({kind: 'comment', entry, text: '', type: 'note'})
        return
      case 'fork':
        setPrompt({kind: 'fork', entry, text: ''})
        return
      case 'publish': {
        const i = SCOPES.indexOf(entry.scope)
        setPrompt({kind: 'publish', entry, choice: Math.min(SCOPES.length - 1, i + 1)})
        return
      }
      case 'delete':
        setPrompt({kind: 'delete', entry})
        return
      case 'openUrl':
        if (!entry.url) {
          setLine({tone: 'error', text: `"${entry.title}" has no url (add one with \`kb edit ${entry.id} --url <url>\`)`})
          return
        }
        void props.openUrl(entry.url).then((ok) =>
          setLine(ok ? {tone: 'ok', text: `Opened ${entry.url}`} : {tone: 'error', text: `No browser could be started here; the url is ${entry.url}`}),
        )
        return
      case 'copyId':
        void props.copy(entry.id).then(
          (where) => setLine({tone: 'ok', text: `Copied ${entry.id} to ${where}`}),
          (e: unknown) => setLine({tone: 'error', text: `Could not copy the id ${entry.id}: ${describeError(e)}`}),
        )
        return
      default:
        return
    }
  }

  const confirmPrompt = (p: Prompt): void => {
    const {entry} = p
    switch (p.kind) {
      case 'resolve':
        void perform(async () => {
          await client.resolve(entry.id, p.text.trim() === '' ? {} : {note: p.text.trim()})
          return `Resolved "${entry.title}"`
        })
        return
      case 'comment':
        if (p.text.trim() === '') {
          setLine({tone: 'error', text: 'A comment needs text (Esc cancels)'})
          return
        }
        void perform(async () => {
          const c = await client.comment(entry.id, {body: p.text.trim(), type: p.type})
          return `Commented on "${entry.title}" (${c.type})`
        })
        return
      case 'fork':
        void perform(async () => {
          const f = await client.fork(entry.id, p.text.trim() === '' ? {} : {title: p.text.trim()})
          return `Forked "${entry.title}" → ${f.id} "${f.title}"`
        })
        return
      case 'publish': {
        const to = SCOPES[p.choice]!
        void perform(async () => {
          const e = await client.publish(entry.id, {scope: to})
          return `Published "${entry.title}" to ${e.scope}`
        })
        return
      }
      case 'delete':
        void perform(
          async () => {
            await client.deleteEntry(entry.id)
            return `Deleted "${entry.title}"`
          },
          () => {
            const v = getView()
            if (v.kind === 'full' && v.id === entry.id) setView({kind: 'browse'})
          },
        )
        return
    }
  }

  const onPromptKey = (input: string, key: import('ink').Key, p: Prompt): void => {
    if (getBusy()) return
    if (key.escape) {
      setPrompt(null)
      setLine({tone: 'info', text: 'Cancelled'})
      return
    }
    if (p.kind === 'delete') {
      if (input === 'y' || input === 'Y') confirmPrompt(p)
      else if (input === 'n' || input === 'N' || key.return) {
        setPrompt(null)
        setLine({tone: 'info', text: 'Not deleted'})
      }
      return
    }
    if (p.kind === 'publish') {
      if (key.return) confirmPrompt(p)
      else if (key.leftArrow || (key.tab && key.shift)) setPrompt({...p, choice: (p.choice + SCOPES.length - 1) % SCOPES.length})
      else if (key.rightArrow || key.tab) setPrompt({...p, choice: (p.choice + 1) % SCOPES.length})
      return
    }
    // A terminal may deliver typed text and Enter in one read (fast typing, tmux send-keys, a paste).
    const enter = /[\r\n]/.exec(input)
    if (!key.return && enter && !key.ctrl && !key.meta) {
      confirmPrompt({...p, text: p.text + printable(input.slice(0, enter.index))})
      return
    }
    if (key.return) {
      confirmPrompt(p)
      return
    }
    if (p.kind === 'comment' && key.tab) {
      const i = COMMENT_TYPES.indexOf(p.type)
      setPrompt({...p, type: COMMENT_TYPES[(i + (key.shift ? COMMENT_TYPES.length - 1 : 1)) % COMMENT_TYPES.length]!})
      return
    }
    if (key.backspace || key.delete) setPrompt({...p, text: p.text.slice(0, -1)})
    else if (key.ctrl && input === 'u') setPrompt({...p, text: ''})
    else if (!key.ctrl && !key.meta && input) setPrompt({...p, text: p.text + printable(input)})
  }

  const onKey = (input: string, key: import('ink').Key): void => {
    // The latest state, not this render's: see useSyncState.
    const prompt = getPrompt()
    const view = getView()
    const focus = getFocus()
    const items = getItems()
    const selected = getSelected()
    const scope = getScope()
    const status = getStatus()
    const current = items[selected]
    if (prompt) return onPromptKey(input, key, prompt)
    if (view.kind === 'help') {
      setView({kind: 'browse'})
      return
    }
    if (view.kind === 'full') {
      const page = Math.max(1, bodyRows - 1)
      const max = Math.max(0, (view.entry ? fullLines(view.entry, columns).length : 0) - bodyRows)
      const a = detailAction(input, key)
      const to = (n: number): void => setView({...view, scroll: Math.max(0, Math.min(max, n))})
      if (a === 'up') to(view.scroll - 1)
      else if (a === 'down') to(view.scroll + 1)
      else if (a === 'pageUp') to(view.scroll - page)
      else if (a === 'pageDown') to(view.scroll + page)
      else if (a === 'first') to(0)
      else if (a === 'last') to(max)
      else if (a === 'close') setView({kind: 'browse'})
      else if (a === 'quit') exit()
      else {
        const la = listAction(input, key)
        if (la && ENTRY_ACTIONS.has(la) && view.entry) startAction(la, view.entry)
        else if (la === 'help') setView({kind: 'help'})
      }
      return
    }
    if (focus === 'search') {
      const a = searchAction(input, key)
      if (a === 'toList') setFocus('list')
      else if (a === 'quit') exit()
      else if (a === 'backspace') setQuery((q) => q.slice(0, -1))
      else if (a === 'clear') setQuery('')
      else if (!key.ctrl && !key.meta && input && !key.upArrow) {
        const enter = /[\r\n]/.exec(input)
        if (enter) setFocus('list')
        const text = printable(enter ? input.slice(0, enter.index) : input)
        if (text !== '') {
          setQuery((q) => q + text)
          setSelected(0)
        }
      }
      return
    }
    const a = listAction(input, key)
    if (!a) return
    const last = Math.max(0, items.length - 1)
    const move = (n: number): void => setSelected(Math.max(0, Math.min(last, n)))
    switch (a) {
      case 'up':
        if (selected === 0) setFocus('search')
        else move(selected - 1)
        return
      case 'down':
        move(selected + 1)
        return
      case 'pageUp':
        move(selected - listRows)
        return
      case 'pageDown':
        move(selected + listRows)
        return
      case 'first':
        move(0)
        return
      case 'last':
        move(last)
        return
      case 'open':
        if (current) setView({kind: 'full', id: current.id, entry: null, scroll: 0, error: null})
        return
      case 'search':
        setFocus('search')
        return
      case 'cycleScope': {
        const next = SCOPE_CYCLE[(SCOPE_CYCLE.indexOf(scope) + 1) % SCOPE_CYCLE.length]
        setScope(next)
        setLine({tone: 'info', text: `Scope: ${next ?? 'all'}`})
        return
      }
      case 'toggleStatus': {
        const next = STATUS_CYCLE[(STATUS_CYCLE.indexOf(status) + 1) % STATUS_CYCLE.length]
        setStatus(next)
        setLine({tone: 'info', text: `Status: ${next ?? 'all'}`})
        return
      }
      case 'help':
        setView({kind: 'help'})
        return
      case 'quit':
        exit()
        return
      default:
        if (current) startAction(a, current)
        else setLine({tone: 'error', text: 'No entry selected'})
    }
  }
  // Ink re-subscribes a new handler only in a passive effect, after the frame is drawn: a key pressed
  // right after a redraw would otherwise meet an older state. A layout effect runs as the frame is
  // committed, so the ref holds the handler of exactly what is on screen (assigning during render would
  // not: React may render a state it then discards).
  const keyHandler = useRef(onKey)
  useLayoutEffect(() => {
    keyHandler.current = onKey
  })
  useInput(useCallback((input: string, key: import('ink').Key) => keyHandler.current(input, key), []))

  // ---- rendering ----
  const filters = `scope ${scope ?? 'all'} · status ${status ?? 'all'}`
  const count = !loaded ? '' : total < 0 ? `${items.length}+ entries` : shownQuery === '' ? `${items.length} entr${items.length === 1 ? 'y' : 'ies'}` : `${total} match${total === 1 ? '' : 'es'}`
  const header = (
    <Box>
      <Text bold color={paint('cyan')}>kb browse</Text>
      <Text dimColor={color}>{fit(`  ${filters}  ${count}`, Math.max(0, columns - 9 - 8))}</Text>
      <Text dimColor={color}>{' ? help'.padStart(8)}</Text>
    </Box>
  )
  const searchFocused = focus === 'search' && view.kind === 'browse' && !prompt
  const search = (
    <Box>
      <Text bold={searchFocused} color={paint(searchFocused ? 'cyan' : 'gray')}>{'Search › '}</Text>
      <Text>{fit(query, Math.min(query.length, columns - 12))}</Text>
      {searchFocused ? <Text inverse> </Text> : null}
      {query === '' && !searchFocused ? <Text dimColor={color}>(/ to search)</Text> : null}
      {query === '' && searchFocused ? <Text dimColor={color}> type to search; empty shows the latest</Text> : null}
    </Box>
  )
  const rule = <Text dimColor={color}>{'─'.repeat(columns)}</Text>

  let body: ReactElement
  if (view.kind === 'help') {
    const lines: ReactElement[] = []
    for (const s of helpSections()) {
      lines.push(<Text key={`h${s.title}`} bold>{s.title}</Text>)
      for (const [k, h] of s.rows) lines.push(<Text key={`${s.title}${k}`}>{fit(`  ${k.padEnd(16)}${h}`, columns)}</Text>)
    }
    body = <Box flexDirection="column" height={bodyRows}>{lines.slice(0, bodyRows)}</Box>
  } else if (view.kind === 'full') {
    const all = view.entry ? fullLines(view.entry, columns) : [view.error ?? 'Loading…']
    const shown = all.slice(view.scroll, view.scroll + bodyRows)
    body = (
      <Box flexDirection="column" height={bodyRows}>
        {shown.map((l, i) => (
          <Text key={i} bold={view.scroll + i === 0 && view.entry !== null} color={paint(view.error && !view.entry ? 'red' : '')}>{l === '' ? ' ' : l}</Text>
        ))}
      </Box>
    )
  } else {
    const listLines: ReactElement[] = []
    if (loadError) {
      for (const [i, l] of [`Could not load entries: ${loadError}`].flatMap((t) => t.match(new RegExp(`.{1,${listWidth}}`, 'g')) ?? []).entries()) listLines.push(<Text key={`e${i}`} color={paint('red')}>{l}</Text>)
    } else if (loaded && items.length === 0) {
      listLines.push(<Text key="none" dimColor={color}>{query.trim() === '' ? 'No entries yet (add one with `kb add`).' : `No entries match "${query.trim()}".`}</Text>)
    } else {
      items.slice(top, top + listRows).forEach((e, i) => {
        const idx = top + i
        const sel = idx === selected
        const p = rowParts(e, listWidth)
        const active = sel && focus === 'list'
        listLines.push(
          <Box key={e.id}>
            <Text>
              <Text bold={sel} color={paint(sel ? 'cyan' : '')}>{sel ? '› ' : '  '}</Text>
              <Text inverse={active} bold={sel}>{p.title}</Text>
              {' '}
              <Text color={paint('magenta')}>{p.tags}</Text>
              <Text color={paint(e.status === 'resolved' ? 'green' : 'yellow')}>{p.status}</Text>
              <Text color={paint('blue')}>{p.scope}</Text>
              <Text dimColor={color}>{p.age}</Text>
            </Text>
          </Box>,
        )
      })
    }
    const detail = current && !loadError ? standardLines(current, detailWidth).slice(0, detailRows) : []
    const detailPane = (
      <Box flexDirection="column" width={detailWidth} height={detailRows}>
        {detail.map((l, i) => (
          <Text key={i} bold={i === 0} dimColor={color && i > 0 && l.startsWith('id ')}>{l === '' ? ' ' : l}</Text>
        ))}
      </Box>
    )
    const listPane = (
      <Box flexDirection="column" width={listWidth} height={listRows}>
        {listLines}
      </Box>
    )
    body = side ? (
      <Box height={bodyRows}>
        {listPane}
        <Box width={3} flexDirection="column">
          {Array.from({length: bodyRows}, (_, i) => <Text key={i} dimColor={color}>{' │ '}</Text>)}
        </Box>
        {detailPane}
      </Box>
    ) : (
      <Box flexDirection="column" height={bodyRows}>
        {listPane}
        <Text dimColor={color}>{'─'.repeat(columns)}</Text>
        {detailPane}
      </Box>
    )
  }

  let statusEl: ReactElement
  if (busy) statusEl = <Text color={paint('yellow')}>Working…</Text>
  else if (loading) statusEl = <Text color={paint('yellow')}>Loading…</Text>
  else if (line) statusEl = <Text color={paint(line.tone === 'error' ? 'red' : line.tone === 'ok' ? 'green' : '')}>{fit(line.text, columns)}</Text>
  else statusEl = <Text> </Text>

  let bottom: ReactElement
  if (prompt) bottom = renderPrompt(prompt, columns, color)
  else {
    const keys =
      view.kind === 'full'
        ? '↑↓/jk scroll  PgUp/PgDn  g/G  r c f p o y d act  Esc back'
        : view.kind === 'help'
          ? 'any key: back'
          : focus === 'search'
            ? 'type to search  ↓/Enter/Tab results  Esc quit'
            : '↑↓/jk move  Enter open  r resolve  c comment  f fork  p publish  o url  y copy  d delete  s scope  t status  / search  q quit'
    bottom = <Text dimColor={color}>{fit(keys, columns)}</Text>
  }

  return (
    <Box flexDirection="column" width={columns}>
      {header}
      {search}
      {rule}
      {body}
      {statusEl}
      {bottom}
    </Box>
  )
}

/** The prompt line: label, the input (its tail when long), a hint — cut to one terminal line. */
function renderPrompt(p: Prompt, columns: number, color: boolean): ReactElement {
  const title = p.entry.title.length > 30 ? `${p.entry.title.slice(0, 29)}…` : p.entry.title
  let label: string
  let hint: string
  let text: string | null = null
  switch (p.kind) {
    case 'resolve':
      label = `Resolve "${title}" — note (optional): `
      hint = 'Enter resolve · Esc cancel'
      text = p.text
      break
    case 'comment':
      label = `Comment [${p.type}]: `
      hint = 'Tab type · Enter send · Esc cancel'
      text = p.text
      break
    case 'fork':
      label = 'Fork title: '
      hint = p.text === '' ? `Enter for "${title} (fork)" · Esc cancel` : 'Enter fork · Esc cancel'
      text = p.text
      break
    case 'publish':
      label = `Publish "${title}" to: `
      hint = '←/→ choose · Enter publish · Esc cancel'
      break
    case 'delete':
      label = `Delete "${title}"? `
      hint = 'y/N'
      break
  }
  if (label.length + hint.length + 24 > columns) hint = ''
  if (label.length + 12 > columns) label = fit(label, Math.max(1, columns - 12))
  const room = columns - label.length - (hint ? hint.length + 2 : 0) - 1
  const shown = text === null ? '' : text.length > room ? `…${text.slice(-(room - 1))}` : text
  return (
    <Box>
      <Text bold color={color && p.kind === 'delete' ? 'red' : undefined}>{label}</Text>
      {p.kind === 'publish'
        ? SCOPES.map((s, i) => (
            <Text key={s} inverse={i === p.choice} bold={i === p.choice}>{` ${s} `}</Text>
          ))
        : null}
      {text !== null ? <Text>{shown}</Text> : null}
      {text !== null ? <Text inverse> </Text> : null}
      {hint ? <Text dimColor={color}>{`  ${hint}`}</Text> : null}
    </Box>
  )
}
