/**
 * @module The outbox sent behind a command that reached the server (docs/cli.md, "Offline writes"): for at
 * most a few seconds, without waiting for another kb holding the queue, one line for what was sent.
 */
import type {ApiClient} from '../../shared/client.js'
import type {CredentialLike} from './principal.js'
import type {OutboxOptions} from './queue.js'

/** How long the queue may be sent behind a command that reached the server. */
const BACKGROUND_SEND_MS = 3000

export async function sendQueuedInBackground(
  baseUrl: string,
  outbox: OutboxOptions,
  client: () => Promise<ApiClient>,
  note: (line: string) => void,
  credential: () => Promise<CredentialLike>,
): Promise<void> {
  try {
    const [{Outbox}, {sendQueued}, {syncLine}, {principalTag}] = await Promise.all([
      import('./queue.js'),
      import('./sync.js'),
      import('./report.js'),
      import('./principal.js'),
    ])
    const deadline = Date.now() + BACKGROUND_SEND_MS
    // The command is done with its client: from here on, none of its requests (reads that settle an edit too) outlast the budget.
    const c = await client()
    c.deadline = deadline
    const principal = principalTag(await credential())
    const report = await sendQueued(Outbox.forServer(baseUrl, outbox), c, {lockWaitMs: 0, deadline, principal})
    const done = report.items.filter((i) => i.status !== 'waiting' && i.status !== 'held')
    if (done.length === 0) return
    note(`sent ${done.length} queued write(s)${report.remaining ? `; ${report.remaining} still waiting (\`kb sync --status\`)` : ''}`)
    for (const i of done) if (i.status === 'forked' || i.status === 'refused') note(`  ${syncLine(i)}`)
  } catch {
    // The queue stays as it was, for `kb sync`.
  }
}
