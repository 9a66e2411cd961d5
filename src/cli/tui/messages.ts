/**
 * @module What flows into the reducer (keys, answers from the API, timers) and what it asks the world to
 * do (load, call the API, open a browser, copy, quit). The runtime (`store.ts`) carries both out.
 */
import type {
  CommentType,
  EntryFull,
  EntryStandard,
  FlagReason,
  Project,
  PublishPreview,
  Scope,
  SensitiveReport,
} from '../../shared/types.js'
import type {HistoryItem} from '../../shared/curation-schemas.js'
import type {Key} from './keys.js'
import type {LoadRequest, ResultsPage, Size, State} from './state.js'

/** What the person chose to do about findings of secrets or personal data (docs/tui.md, "Safe publish"). */
export interface Choice {
  redact?: boolean
  acknowledge?: string[]
}

export type PublishCall = {kind: 'publish'; entry: EntryStandard; scope: Scope; choice?: Choice}

/** A change the person asked for, sent to the API once confirmed. */
export type Call =
  | {kind: 'resolve'; entry: EntryStandard; note: string; choice?: Choice}
  | {kind: 'reopen'; entry: EntryStandard}
  | {kind: 'comment'; entry: EntryStandard; body: string; type: CommentType; choice?: Choice}
  | {kind: 'fork'; entry: EntryStandard; title: string}
  | PublishCall
  | {kind: 'delete'; entry: EntryStandard}
  | {kind: 'verify'; entry: EntryStandard; note: string}
  | {kind: 'flag'; entry: EntryStandard; reason: FlagReason; note: string}
  | {kind: 'unflag'; entry: EntryStandard}
  /** In $EDITOR (edit.ts), sent as `kb edit` sends it. */
  | {kind: 'edit'; entry: EntryStandard}

/** The calls the server scans for secrets and personal data, which a choice can follow. */
export type ScannedCall = Extract<Call, {kind: 'publish' | 'comment' | 'resolve'}>

export type Msg =
  | {type: 'key'; key: Key}
  | {type: 'resize'; size: Size}
  | {type: 'results'; seq: number; page: ResultsPage}
  | {type: 'resultsFailed'; seq: number; error: string}
  /** The load `seq` is taking long enough to say so. */
  | {type: 'slow'; seq: number}
  | {type: 'entry'; id: string; entry: EntryFull}
  | {type: 'entryFailed'; id: string; error: string}
  | {type: 'history'; id: string; items: HistoryItem[]}
  | {type: 'historyFailed'; id: string; error: string}
  | {type: 'projects'; projects: Project[]}
  /** `report`: the server refused it for secrets or personal data (sensitive_content), with what it found. */
  | {type: 'done'; call: Call; ok: boolean; text: string; report?: SensitiveReport}
  /** What publishing would expose (its text made safe for the terminal), or why it could not be said. */
  | {type: 'previewed'; call: PublishCall; preview: PublishPreview}
  | {type: 'previewFailed'; call: PublishCall; error: string}
  | {type: 'opened'; url: string; ok: boolean}
  | {type: 'copied'; text: string; copy: CopyResult}
  /** The screen shows the results of load `seq`. */
  | {type: 'painted'; seq: number}
  /** Keys held since hold `seq` waited long enough. */
  | {type: 'holdExpired'; seq: number}

export type Effect =
  /** Load results after `delay` ms; a newer load replaces one still waiting. */
  | {type: 'load'; seq: number; delay: number; request: LoadRequest}
  | {type: 'loadEntry'; id: string}
  | {type: 'loadHistory'; id: string}
  | {type: 'loadProjects'}
  | {type: 'call'; call: Call}
  /** Ask what publishing would expose before publishing. */
  | {type: 'preview'; call: PublishCall}
  | {type: 'openUrl'; url: string}
  | {type: 'copy'; text: string}
  /** Report `holdExpired` after HOLD_MS. */
  | {type: 'hold'; seq: number}
  | {type: 'quit'}

/** Where a copy went: `certain` when a tool took it, false when it was only sent to the terminal. */
export interface CopyResult {
  where: string | null
  certain: boolean
  /** Why nothing could take it. */
  error?: string
}

export interface Step {
  state: State
  effects: Effect[]
}

export const step = (state: State, ...effects: Effect[]): Step => ({state, effects})
