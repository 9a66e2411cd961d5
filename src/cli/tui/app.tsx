/**
 * @module The `kb browse` screen as an Ink component: it owns a store (state, reducer, effects), feeds it
 * the terminal's input and size, and paints the frame of the current state. Everything it shows comes
 * from the kb API through the CLI's own `ApiClient`.
 */
import {useApp, useStdin, useStdout} from 'ink'
import {useEffect, useLayoutEffect, useState, useSyncExternalStore, type ReactElement} from 'react'
import type {ApiClient} from '../../shared/client.js'
import type {Scope, Status} from '../../shared/types.js'
import {frame} from './frame.js'
import type {CopyResult} from './messages.js'
import {initialState, type Size} from './state.js'
import {BrowseStore} from './store.js'
import {Screen} from './view.js'

/** Ink's most frames a second (its `maxFps`, here explicit): a frame waits at most 1000 / RENDER_FPS ms. */
export const RENDER_FPS = 30
const PAINT_MS = Math.ceil(1000 / RENDER_FPS) + 5

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
  /** Copies text to the clipboard; says where it went. */
  copy: (text: string) => Promise<CopyResult>
  /** Fixed screen size (tests); otherwise the terminal's, following resizes. */
  columns?: number
  rows?: number
  /** How many results a search or listing asks for. */
  limit?: number
  /** The edit key: $EDITOR on an entry, then sent (edit.ts); absent, the key says it cannot. */
  edit?: (id: string) => Promise<string>
}

export function BrowseApp(props: BrowseProps): ReactElement {
  const {exit} = useApp()
  const {stdin, setRawMode} = useStdin()
  const {stdout} = useStdout()
  const readSize = (): Size => ({
    columns: props.columns ?? (stdout.columns > 0 ? stdout.columns : 80),
    rows: props.rows ?? (stdout.rows > 0 ? stdout.rows : 24),
  })
  const [store] = useState(
    () =>
      new BrowseStore(
        {client: props.client, openUrl: props.openUrl, copy: props.copy, onQuit: exit, ...(props.edit ? {edit: props.edit} : {})},
        initialState({
          size: readSize(),
          query: props.query,
          scope: props.scope,
          status: props.status,
          projectId: props.projectId,
          limit: props.limit,
        }),
      ),
  )

  useEffect(() => {
    store.begin()
    return () => store.stop()
  }, [store])

  useEffect(() => {
    const onResize = (): void => store.dispatch({type: 'resize', size: readSize()})
    stdout.on('resize', onResize)
    return () => {
      stdout.off('resize', onResize)
    }
  }, [store, stdout, props.columns, props.rows])

  // Ink puts the terminal in raw mode and reads it; the store decodes every chunk into keys itself.
  useEffect(() => {
    setRawMode(true)
    const onData = (data: Buffer | string): void => store.input(String(data))
    stdin.on('data', onData)
    return () => {
      stdin.off('data', onData)
      setRawMode(false)
    }
  }, [store, stdin, setRawMode])

  const state = useSyncExternalStore(store.subscribe, store.getState)
  // Keys held for new results act once their frame is on the terminal: Ink writes a committed frame at once
  // or, within RENDER_FPS's interval of the previous one, at the end of that interval; so the frame is out
  // by PAINT_MS after the commit. A newer result set cancels the wait (docs/tui.md, "Keys act on what is on screen").
  const {seq} = state.results
  useLayoutEffect(() => {
    if (seq <= store.getState().painted) return
    const timer = setTimeout(() => store.dispatch({type: 'painted', seq}), PAINT_MS)
    return () => clearTimeout(timer)
  }, [store, seq])
  return <Screen lines={frame(state)} columns={state.size.columns} color={props.color !== false} />
}
