/**
 * @module The Store's export, import and online backup group (`Store.transfer`), and its records: what a
 * driver implements for server/services/transfer/, apart from the rest of the Store.
 */
import type {OnConflict} from '../../src/shared/contract.js'
import type {AuthorRef, Comment, FlagReason, ProjectRole, Scope} from '../../src/shared/types.js'
import type {HistoryExport} from './history-store.js'
import type {EntryRow, Viewer} from './store.js'

/** A project as exported: its creator and (for the owner's export) its members by id and name. */
export interface ProjectExport {
  id: string
  name: string
  remote: string
  created_at: string
  created_by: AuthorRef
  members?: Array<AuthorRef & {role: ProjectRole}>
  /** Absent in files of a kb before trust (docs/api.md, "Export, import and backup"): the default then. */
  verify_after_days?: number
}

/** An open flag as exported: who raised it, by reference (docs/api.md, "Flags"). */
export interface FlagExport {
  by: AuthorRef
  reason: FlagReason
  note: string | null
  duplicate_of: string | null
  created_at: string
}

/**
 * An entry as exported and imported: every stored field but what is derived (the summary, the comment and flag
 * counts), with its comments and open flags.
 */
export type EntryExport = Omit<EntryRow, 'summary' | 'summary_title' | 'comment_count' | 'flags' | 'flagged_at'> & {
  comments: Comment[]
  open_flags: FlagExport[]
  /** The entry's history, oldest first (docs/api.md, "History"); an import adds its own `imported` record. */
  history?: HistoryExport[]
}

export interface ExportFilter {
  scope?: Scope
  /** Only this project (its line and its entries). */
  projectId?: string
}

/** One validated line of an import, with its line number for the report. */
export type ImportRecord =
  | {line: number; kind: 'project'; project: ProjectExport}
  | {
      line: number
      kind: 'entry'
      entry: EntryExport & {summary: string; summary_title: string}
      /** Found stored as is when read, so not scanned: applied only if it still is (skipped), else refused. */
      unscanned?: boolean
    }

export interface ImportOptions {
  onConflict: OnConflict
  dryRun: boolean
  /** Who imports: only the owner may create principals and import what other principals wrote. */
  importer: {id: string; name: string; owner: boolean}
  at: string
}

export interface ImportOutcome {
  created: number
  updated: number
  skipped: number
  /** Of the skipped entries, those stored here exactly as the file has them (usage counts aside). */
  unchanged: number
  principals_created: number
  rejected: Array<{line: number; reason: string}>
}

/** A consistent copy of the whole store in a file of its own; `release` deletes it. */
export interface StoreSnapshot {
  path: string
  bytes: number
  /** What the file is, e.g. `application/vnd.sqlite3`. */
  contentType: string
  release(): Promise<void>
}

export interface TransferStore {
  /** Projects visible to the viewer (null: every project, for the owner), in id order, `limit` after `after`. */
  exportProjects(viewer: Viewer | null, filter: ExportFilter, page: {limit: number; after?: string}): Promise<ProjectExport[]>
  /**
   * Entries visible to the viewer (null: all, private ones included, for the owner's backup), in the
   * order they were stored, `limit` after the opaque position `after`; each with its comments. With
   * `maxChars`, the page ends early once its entries' bodies, thought chains and resolutions reach that
   * many characters (one entry at least), so that large entries come a few at a time.
   */
  exportEntries(
    viewer: Viewer | null,
    filter: ExportFilter,
    page: {limit: number; after?: number; maxChars?: number},
  ): Promise<{entries: EntryExport[]; next?: number}>
  /** How many entries `exportEntries` will give, announced in the export's header so a reader can show progress. */
  countExportEntries(viewer: Viewer | null, filter: ExportFilter): Promise<number>
  /**
   * Applies every record in one transaction, in order, or none: any rejected record rolls all back
   * (the outcome then lists every rejection found). A dry run applies and always rolls back, so its
   * counts are exact. The records are read synchronously inside the transaction. Other requests go on
   * meanwhile: reads see the store as it was until the import commits, other writes wait for it.
   */
  applyImport(records: Iterable<ImportRecord>, options: ImportOptions): Promise<ImportOutcome>
  /**
   * Whether the entry is stored here exactly as the record has it (usage counts aside) and the importer may see it:
   * such a line is skipped without being scanned (docs/api.md, "Export, import and backup").
   */
  storedAsIs(entry: EntryExport & {summary: string; summary_title: string}, importer: ImportOptions['importer']): Promise<boolean>
  /**
   * Which of these entry ids are stored here, whoever may see them: an import asks once for a batch of lines and
   * asks `storedAsIs` only of those (never told to the caller: a hidden entry's id is as good as a missing one's).
   */
  storedIds(ids: string[]): Promise<Set<string>>
  /** Takes a consistent copy of the live store while it keeps serving (SQLite's online backup). */
  snapshot(): Promise<StoreSnapshot>
}
