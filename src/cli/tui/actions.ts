/**
 * @module The confirmed entry actions, carried out against the API; each returns the line the status bar
 * shows on success (an error is thrown and described by the caller).
 */
import type {ApiClient} from '../../shared/client.js'
import type {Call} from './messages.js'

export async function perform(client: ApiClient, c: Call): Promise<string> {
  const {entry} = c
  switch (c.kind) {
    case 'resolve':
      await client.resolve(entry.id, c.note === '' ? {} : {note: c.note})
      return `Resolved "${entry.title}"`
    case 'reopen':
      // docs/api.md: PATCH status=open reopens and clears the resolution.
      await client.patchEntry(entry.id, {status: 'open'})
      return `Reopened "${entry.title}"`
    case 'comment': {
      const made = await client.comment(entry.id, {body: c.body, type: c.type})
      return `Commented on "${entry.title}" (${made.type})`
    }
    case 'fork': {
      const f = await client.fork(entry.id, c.title === '' ? {} : {title: c.title})
      return `Forked "${entry.title}" → ${f.id} "${f.title}"`
    }
    case 'publish': {
      const e = await client.publish(entry.id, {scope: c.scope})
      return `Published "${entry.title}" to ${e.scope}`
    }
    case 'delete':
      await client.deleteEntry(entry.id)
      return `Deleted "${entry.title}"`
  }
}
