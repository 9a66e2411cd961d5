/**
 * @module What `kb browse` knows at one moment — the query, the results it shows, the selection, the view,
 * the prompt, the keys held until the results settle, the status line — and what follows from it (the
 * layout, the selected entry, whether the results on screen are settled). Plain data:
 * the reducer (`reduce.ts`) makes the next state from it, the views (`frame.ts`) draw it.
 */
import type {CommentType, EntryFull, EntryStandard, FlagReason, Project, Scope, SensitiveReport, Status} from '../../shared/types.js'
import type {HistoryItem} from '../../shared/curation-schemas.js'
import type {Key} from './keys.js'
import type {ScannedCall} from './messages.js'

export interface Size {
  columns: number
  rows: number
}

export interface Filters {
  scope?: Scope
  status?: Status
  /** The review queue instead of the entries (docs/tui.md, "Review"): what needs a curator, most used first. */
  review?: true
}

/** A page of results as the data layer hands it over. */
export interface ResultsPage {
  items: EntryStandard[]
  /** Matches of a search; for a listing, how many are known so far. */
  total: number
  /** Whether there are more than these. */
  more: boolean
  /** The listing's cursor for the next page. */
  cursor: string | null
}

/** The results on screen and the question they answer (the box may already hold a newer one). */
export interface Results extends ResultsPage {
  query: string
  filters: Filters
  loaded: boolean
  error: string | null
  /** The request that produced them. */
  seq: number
}

export interface LoadRequest {
  query: string
  filters: Filters
  projectId: string | null
  limit: number
  /** Continue a listing after this cursor. */
  cursor: string | null
}

/**
 * Why results are loaded, which decides the selection: a new question (query, filters) selects its first
 * row; a refresh keeps the selected entry; more rows are added after the ones on screen.
 */
export type LoadMode = 'new' | 'refresh' | 'more'

export interface FullView {
  id: string
  entry: EntryFull | null
  error: string | null
  scroll: number
  /** The highlighted link (forked from, branches), -1 for none. */
  link: number
  /** The view Esc returns to (the entry a link was followed from). */
  prev: FullView | null
  /** The entry's history shown instead of the entry (`h`), or being loaded. */
  history?: HistoryItem[] | 'loading' | null
}

export type Prompt =
  | {kind: 'resolve'; entry: EntryStandard; text: string}
  | {kind: 'reopen'; entry: EntryStandard}
  | {kind: 'comment'; entry: EntryStandard; text: string; type: CommentType}
  | {kind: 'fork'; entry: EntryStandard; text: string}
  | {kind: 'publish'; entry: EntryStandard; choices: readonly Scope[]; choice: number}
  | {kind: 'delete'; entry: EntryStandard}
  | {kind: 'verify'; entry: EntryStandard; text: string}
  /** Flag with a reason, or take back the caller's own flag (`withdraw`); Tab cycles. */
  | {kind: 'flag'; entry: EntryStandard; text: string; reason: FlagReason | 'withdraw'}
  /** Secrets or personal data found in what `call` would share: redact, keep as written, or cancel. */
  | {kind: 'sensitive'; entry: EntryStandard; call: ScannedCall; report: SensitiveReport; scroll: number}

interface StatusLine {
  text: string
  tone: 'ok' | 'error' | 'info'
}

type Focus = 'search' | 'list'

export interface State {
  size: Size
  projectId: string | null
  /** How many results a search or listing asks for. */
  limit: number
  query: string
  /** The query when the search box was entered with `/`: Esc restores it. */
  searchOrigin: string | null
  focus: Focus
  filters: Filters
  results: Results
  /** The latest load asked for; its answer is awaited while `loading.pending`. */
  seq: number
  loading: {pending: boolean; slow: boolean; mode: LoadMode}
  /** The results (by `seq`) the screen has drawn. */
  painted: number
  /** Keys pressed while the results were about to change, applied once they are on screen. */
  queue: Key[]
  /** Counts holds, so the timer of an older one cannot drop a newer queue. */
  hold: number
  /** G was pressed while more rows could be loaded: keep loading, then select the last. */
  wantLast: boolean
  selected: number
  /** The first result row on screen. */
  top: number
  full: FullView | null
  /** The help screen, over whatever was there (which it returns to). */
  help: {scroll: number} | null
  prompt: Prompt | null
  /** An action is running against the API. */
  busy: boolean
  line: StatusLine | null
  projects: Record<string, Project>
  quit: boolean
}

export interface StartOptions {
  size: Size
  query?: string
  scope?: Scope
  status?: Status
  projectId?: string | null
  limit?: number
}

export function initialState(o: StartOptions): State {
  const filters: Filters = {...(o.scope ? {scope: o.scope} : {}), ...(o.status ? {status: o.status} : {})}
  return {
    size: o.size,
    projectId: o.projectId ?? null,
    limit: o.limit ?? 50,
    query: o.query ?? '',
    searchOrigin: null,
    focus: o.query ? 'list' : 'search',
    filters,
    results: {items: [], total: 0, more: false, cursor: null, query: '', filters: {}, loaded: false, error: null, seq: 0},
    seq: 0,
    loading: {pending: false, slow: false, mode: 'new'},
    painted: 0,
    queue: [],
    hold: 0,
    wantLast: false,
    selected: 0,
    top: 0,
    full: null,
    help: null,
    prompt: null,
    busy: false,
    line: null,
    projects: {},
    quit: false,
  }
}

/** Side by side from this width; below it the detail pane goes under the list. */
const SIDE_BY_SIDE_MIN = 110

export interface Layout {
  columns: number
  /** Lines between the rule under the search box and the status line. */
  bodyRows: number
  side: boolean
  listWidth: number
  detailWidth: number
  listRows: number
  detailRows: number
}

/**
 * Header, search box, rule, body…, then `footRows` for the status line and the key line or a prompt. The
 * frame is one line shorter than the terminal: Ink redraws a frame that fills the terminal by clearing the
 * whole screen and its scrollback (`ESC[2J ESC[3J`) on every change, and one that does not line by line.
 */
export function layout(size: Size, footRows = 2): Layout {
  const {columns, rows} = size
  const bodyRows = Math.max(3, rows - 1 - 3 - footRows)
  const side = columns >= SIDE_BY_SIDE_MIN
  const listWidth = side ? Math.floor(columns * 0.48) : columns
  const listRows = side ? bodyRows : Math.max(1, Math.floor((bodyRows - 1) / 2))
  return {
    columns,
    bodyRows,
    side,
    listWidth,
    detailWidth: side ? columns - listWidth - 3 : columns,
    listRows,
    detailRows: side ? bodyRows : bodyRows - listRows - 1,
  }
}

/** The entry highlighted in the results. */
export function selectedEntry(s: State): EntryStandard | undefined {
  return s.results.items[s.selected]
}

/** The first row on screen so that the selection is visible, moving the window as little as possible. */
export function windowTop(top: number, selected: number, rows: number, count: number): number {
  let t = top
  if (selected < t) t = selected
  else if (selected >= t + rows) t = selected - rows + 1
  return Math.max(0, Math.min(t, count - rows))
}

/**
 * Whether the results on screen are the ones the next key acts on: no new question or refresh is on its
 * way, and the latest answer has been drawn. (Loading more rows only adds rows below.)
 */
export function settled(s: State): boolean {
  return !(s.loading.pending && s.loading.mode !== 'more') && s.painted >= s.results.seq
}
