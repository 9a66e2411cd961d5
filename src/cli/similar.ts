/**
 * @module Similar entries on write, for `kb add` (docs/cli.md, "Similar entries"): the lines that list them, and on a
 * terminal the question what to do instead of adding a copy: add anyway, comment on one of them, or cancel.
 */
import type {SimilarItem} from '../shared/types.js'
import {choose} from './input.js'
import {shortId} from '../shared/short-id.js'
import {oneLine} from './output/format.js'

/** One line per similar entry: its id, its similarity, its title (untrusted text, made safe). */
export function similarLines(similar: readonly SimilarItem[]): string[] {
  return similar.map((s, i) => `  ${i + 1}. ${shortId(s.id)}  ${Math.round(s.similarity * 100)}%  ${oneLine(s.title)}`)
}

export type SimilarDecision = {kind: 'add'} | {kind: 'cancel'} | {kind: 'comment'; on: SimilarItem}

/** Asks on the terminal (stderr) what to do about the similar entries. */
export async function askAboutSimilar(similar: readonly SimilarItem[]): Promise<SimilarDecision> {
  process.stderr.write(`Entries you can see look like the same knowledge:\n${similarLines(similar).join('\n')}\n`)
  const answer = await choose('[a]dd anyway, [c]omment on one of them instead, or [q]uit?', ['a', 'c', 'q'] as const)
  if (answer === 'q') return {kind: 'cancel'}
  if (answer === 'a') return {kind: 'add'}
  if (similar.length === 1) return {kind: 'comment', on: similar[0]!}
  const numbers = similar.map((_, i) => String(i + 1))
  const which = await choose(`Comment on which one? [${numbers.join('/')}]`, numbers)
  return {kind: 'comment', on: similar[Number(which) - 1]!}
}
