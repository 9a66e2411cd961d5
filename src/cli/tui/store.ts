/**
 * @module The runtime around the reducer: holds the state, turns terminal input into keys, and carries
 * out the effects (timers, API calls, browser, clipboard), feeding their outcome back as messages. The
 * state changes synchronously with each key, so every key meets what the previous one did.
 */
import type {ApiClient} from '../../shared/client.js'
import {perform} from './actions.js'
import {createKeyDecoder} from './keys.js'
import {describeError, loadEntry, loadHistory, loadPreview, loadProjects, loadResults, refusalReport} from './load.js'
import type {CopyResult, Effect, Msg} from './messages.js'
import {HOLD_MS, reduce, start} from './reduce.js'
import type {State} from './state.js'

/** `Loading…` appears only when an answer takes longer than this. */
const LOADING_DELAY_MS = 100
/** A lone ESC followed by nothing within this long is the Esc key, not the start of a sequence. */
const ESC_WAIT_MS = 25

export interface StoreDeps {
  client: ApiClient
  /** Opens a URL in the browser; false when none could be started. */
  openUrl: (url: string) => Promise<boolean>
  /** Copies text to the clipboard; says where it went. */
  copy: (text: string) => Promise<CopyResult>
  onQuit: () => void
  /** The edit key: $EDITOR on the entry, then sent (edit.ts); the status line. */
  edit?: (id: string) => Promise<string>
}

export class BrowseStore {
  private state: State
  private readonly listeners = new Set<() => void>()
  private readonly decoder = createKeyDecoder()
  private loadTimer: NodeJS.Timeout | undefined
  private slowTimer: NodeJS.Timeout | undefined
  private escTimer: NodeJS.Timeout | undefined
  private holdTimer: NodeJS.Timeout | undefined
  private stopped = false

  constructor(
    private readonly deps: StoreDeps,
    initial: State,
  ) {
    this.state = initial
  }

  /** Starts loading; separate from the constructor so nothing runs before the screen is mounted. */
  begin(): void {
    const s = start(this.state)
    this.set(s.state)
    this.run(s.effects)
  }

  readonly getState = (): State => this.state

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener)
    return () => {
      this.listeners.delete(listener)
    }
  }

  readonly dispatch = (msg: Msg): void => {
    if (this.stopped) return
    const {state, effects} = reduce(this.state, msg)
    this.set(state)
    this.run(effects)
  }

  /** Raw terminal input: every key in it, in order. */
  readonly input = (chunk: string): void => {
    clearTimeout(this.escTimer)
    for (const key of this.decoder.push(chunk)) this.dispatch({type: 'key', key})
    if (this.decoder.pending()) {
      this.escTimer = setTimeout(() => {
        for (const key of this.decoder.flush()) this.dispatch({type: 'key', key})
      }, ESC_WAIT_MS)
    }
  }

  stop(): void {
    this.stopped = true
    for (const t of [this.loadTimer, this.slowTimer, this.escTimer, this.holdTimer]) clearTimeout(t)
    this.listeners.clear()
  }

  private set(state: State): void {
    if (state === this.state) return
    this.state = state
    for (const l of this.listeners) l()
  }

  private run(effects: Effect[]): void {
    for (const e of effects) this.carry(e)
  }

  private carry(e: Effect): void {
    const {client} = this.deps
    const {dispatch} = this
    switch (e.type) {
      case 'load':
        clearTimeout(this.loadTimer)
        clearTimeout(this.slowTimer)
        this.loadTimer = setTimeout(() => {
          this.slowTimer = setTimeout(() => dispatch({type: 'slow', seq: e.seq}), LOADING_DELAY_MS)
          const settle = (): void => {
            if (this.state.seq === e.seq) clearTimeout(this.slowTimer)
          }
          loadResults(client, e.request).then(
            (page) => {
              settle()
              dispatch({type: 'results', seq: e.seq, page})
            },
            (err: unknown) => {
              settle()
              dispatch({type: 'resultsFailed', seq: e.seq, error: describeError(err)})
            },
          )
        }, e.delay)
        return
      case 'loadEntry':
        loadEntry(client, e.id).then(
          (entry) => dispatch({type: 'entry', id: e.id, entry}),
          (err: unknown) => dispatch({type: 'entryFailed', id: e.id, error: describeError(err)}),
        )
        return
      case 'loadHistory':
        loadHistory(client, e.id).then(
          (items) => dispatch({type: 'history', id: e.id, items}),
          (err: unknown) => dispatch({type: 'historyFailed', id: e.id, error: describeError(err)}),
        )
        return
      case 'loadProjects':
        // Names for project ids; without them the ids are shown, so a failure is not worth a message.
        loadProjects(client).then(
          (projects) => dispatch({type: 'projects', projects}),
          () => undefined,
        )
        return
      case 'call':
        perform(client, e.call, this.deps.edit ?? (() => Promise.reject(new Error('editing needs a terminal')))).then(
          (text) => dispatch({type: 'done', call: e.call, ok: true, text}),
          (err: unknown) => {
            const report = refusalReport(err)
            dispatch({type: 'done', call: e.call, ok: false, text: describeError(err), ...(report ? {report} : {})})
          },
        )
        return
      case 'preview':
        loadPreview(client, e.call.entry.id, e.call.scope).then(
          (preview) => dispatch({type: 'previewed', call: e.call, preview}),
          (err: unknown) => dispatch({type: 'previewFailed', call: e.call, error: describeError(err)}),
        )
        return
      case 'openUrl':
        this.deps.openUrl(e.url).then(
          (ok) => dispatch({type: 'opened', url: e.url, ok}),
          () => dispatch({type: 'opened', url: e.url, ok: false}),
        )
        return
      case 'copy':
        this.deps.copy(e.text).then(
          (copy) => dispatch({type: 'copied', text: e.text, copy}),
          (err: unknown) => dispatch({type: 'copied', text: e.text, copy: {where: null, certain: false, error: describeError(err)}}),
        )
        return
      case 'hold':
        clearTimeout(this.holdTimer)
        this.holdTimer = setTimeout(() => dispatch({type: 'holdExpired', seq: e.seq}), HOLD_MS)
        return
      case 'quit':
        this.deps.onQuit()
        return
    }
  }
}
