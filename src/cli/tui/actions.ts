/**
 * @module The confirmed entry actions, carried out against the API; each returns the line the status bar
 * shows on success (an error is thrown and described by the caller).
 */
import type {ApiClient} from '../../shared/client.js'
import type {Call, Choice} from './messages.js'
import {isStale} from './trust-lines.js'
import {shortId} from '../../shared/short-id.js'

/** `edit`: opens $EDITOR on the entry and sends what is saved (edit.ts). */
export async function perform(client: ApiClient, c: Call, edit: (id: string) => Promise<string>): Promise<string> {
  const {entry} = c
  switch (c.kind) {
    case 'edit':
      return edit(entry.id)
    case 'resolve':
      await client.resolve(entry.id, {...(c.note === '' ? {} : {note: c.note}), ...c.choice})
      return `Resolved "${entry.title}"${doneWith(c.choice)}`
    case 'reopen':
      // docs/api.md: PATCH status=open reopens and clears the resolution.
      await client.patchEntry(entry.id, {status: 'open'})
      return `Reopened "${entry.title}"`
    case 'comment': {
      const made = await client.comment(entry.id, {body: c.body, type: c.type, ...c.choice})
      return `Commented on "${entry.title}" (${made.type})${doneWith(c.choice)}`
    }
    case 'fork': {
      const f = await client.fork(entry.id, c.title === '' ? {} : {title: c.title})
      return `Forked "${entry.title}" → ${shortId(f.id)} "${f.title}"`
    }
    case 'publish': {
      const e = await client.publish(entry.id, {scope: c.scope, ...c.choice})
      return `Published "${entry.title}" to ${e.scope}${doneWith(c.choice)}`
    }
    case 'delete':
      await client.deleteEntry(entry.id)
      return `Deleted "${entry.title}"`
    case 'verify': {
      const e = await client.verify(entry.id, c.note === '' ? {} : {note: c.note})
      // Verifying from here re-bases no anchor (kb browse holds no checkout): a changed one keeps it stale.
      const still = isStale(e) ? `; still stale: ${e.freshness.reasons.map((r) => r.detail).join('; ')}` : ''
      return `Verified "${entry.title}"${still}`
    }
    case 'flag':
      await client.flag(entry.id, {reason: c.reason, ...(c.note === '' ? {} : {note: c.note})})
      return `Flagged "${entry.title}" as ${c.reason}`
    case 'unflag':
      await client.withdrawFlag(entry.id)
      return `Withdrew your flag on "${entry.title}" (if you had one)`
  }
}

/** What was done about findings, for the status line. */
function doneWith(choice: Choice | undefined): string {
  if (choice?.redact) return ', findings redacted'
  if (choice?.acknowledge?.length) return ', findings kept as written (recorded on the entry)'
  return ''
}
