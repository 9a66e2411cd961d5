/**
 * @module Field rules that JSON Schema cannot say (trimming, folding, URL syntax); each failure is a 422.
 */
import {KbError, type FieldError} from '../../src/shared/errors.js'
import {THOUGHT_KIND_DEFAULT, TITLE_MAX, URL_MAX} from '../../src/shared/contract.js'
import type {Scope, ThoughtKind, ThoughtStep} from '../../src/shared/types.js'

/** Collects field errors so one 422 can list every broken rule. */
export class FieldErrors {
  readonly list: FieldError[] = []

  add(path: string, message: string): void {
    this.list.push({path, message})
  }

  throwIfAny(): void {
    if (this.list.length > 0) {
      throw new KbError('validation_failed', this.list.map((e) => `${e.path}: ${e.message}`).join('; '), {errors: this.list})
    }
  }
}

export function normalizeTitle(title: string, errors: FieldErrors, path = 'title'): string {
  const t = title.trim()
  // Characters are code points, as JSON Schema's maxLength counts them: an emoji is one, not two.
  const length = Array.from(t).length
  if (length === 0) errors.add(path, 'must not be blank')
  else if (length > TITLE_MAX) errors.add(path, `must be at most ${TITLE_MAX} characters (got ${length})`)
  return t
}

export function normalizeBody(body: string, errors: FieldErrors): string {
  if (body.trim().length === 0) errors.add('body', 'must not be blank')
  return body
}

export function normalizeTags(tags: string[]): string[] {
  return [...new Set(tags.map((t) => t.toLowerCase()))]
}

export function normalizeUrl(url: string | null, errors: FieldErrors, path = 'url'): string | null {
  if (url === null) return null
  const trimmed = url.trim()
  if (trimmed.length > URL_MAX) errors.add(path, `must be at most ${URL_MAX} characters`)
  let parsed: URL | null
  try {
    parsed = new URL(trimmed)
  } catch {
    parsed = null
  }
  if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || parsed.hostname === '') {
    errors.add(path, 'must be an absolute http(s) URL')
    return null
  }
  return trimmed
}

export function normalizeThoughts(steps: Array<{thought: string; kind?: string}>, errors: FieldErrors): ThoughtStep[] {
  return steps.map((s, i) => {
    if (s.thought.trim() === '') errors.add(`thought_chain/${i}/thought`, 'must not be blank')
    return {step: i + 1, thought: s.thought, kind: (s.kind ?? THOUGHT_KIND_DEFAULT) as ThoughtKind}
  })
}

/** The scope of a new entry when none is asked for: its project's, when it has one, else private (docs/api.md). */
export function newEntryScope(requested: Scope | undefined, projectId: string | null): Scope {
  return requested ?? (projectId ? 'project' : 'private')
}

export function lowerUuid(id: string): string {
  return id.toLowerCase()
}
