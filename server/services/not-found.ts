/**
 * @module The 404s of an entry or a project the caller may not see, written once: a hidden one answers exactly as
 * one that does not exist (docs/api.md, "Errors").
 */
import {KbError} from '../../src/shared/errors.js'

/** An entry that does not exist, or that the caller may not see. */
export function entryNotFound(id: string): KbError {
  return new KbError('not_found', `knowledge entry ${id} does not exist`)
}

/**
 * A project that does not exist, or that the caller is not a member of; `field`, when the project came in a request
 * field (`project_id`), is named in the problem's `errors`.
 */
export function projectNotFound(id: string, field?: string): KbError {
  const errors = field === undefined ? undefined : [{path: field, message: 'unknown project'}]
  return new KbError('not_found', `project ${id} does not exist or you are not a member`, errors ? {errors} : {})
}
