/**
 * @module Checks of the data directory before the daemon uses it (docs/security.md, "Other local users";
 * docs/operations.md): a directory others may write to is refused, and so is an existing store that lost
 * its database — a zero-length `kb.sqlite`, or `owner.key` without `kb.sqlite` — instead of silently
 * starting a new, empty store and writing a new `owner.key` over the old one.
 */
import {existsSync, readFileSync, statSync} from 'node:fs'

/**
 * Why the directory may not be used, or null: it belongs to someone else, or every user may write to it.
 * (Group-writable is left alone: with a umask of 002 a user's own group is theirs alone.) Only POSIX modes
 * and owners are checked (Windows has neither).
 */
export function unsafeDataDir(dir: string): string | null {
  const st = statSync(dir)
  const uid = process.getuid?.()
  if (uid === undefined) return null
  if (st.uid !== uid && uid !== 0)
    return `the data directory ${dir} belongs to another user (uid ${st.uid}); kb keeps its keys only in a directory of yours`
  if ((st.mode & 0o002) !== 0) {
    const mode = (st.mode & 0o777).toString(8).padStart(4, '0')
    return (
      `the data directory ${dir} is writable by every user (mode ${mode}): they could replace its keys or its database. ` +
      `Make it yours alone (chmod 700 ${dir}) and start again`
    )
  }
  return null
}

/** Whether a file exists with something in it (an empty owner.key asks for a new key: docs/operations.md). */
const holdsText = (path: string): boolean => existsSync(path) && readFileSync(path, 'utf8').trim() !== ''

/** Why an existing SQLite store cannot be opened as it stands (its database lost), or null. */
export function lostDatabase(db: string, ownerKey: string): string | null {
  const size = existsSync(db) ? statSync(db).size : -1
  if (size === 0) {
    return (
      `the database ${db} is empty (0 bytes): the store it held is gone (a full disk, or a truncated copy). ` +
      'kb will not start a new store over it: restore a backup (kb restore <file>), or, to start afresh, remove it and owner.key'
    )
  }
  if (size === -1 && holdsText(ownerKey)) {
    return (
      `owner.key is here but the database ${db} is not: the store was moved or deleted. kb will not start a new store ` +
      'and write a new owner.key over the old one: put the database back or restore a backup (kb restore <file>), or, to start afresh, remove owner.key'
    )
  }
  return null
}
