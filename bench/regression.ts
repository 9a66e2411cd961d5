/**
 * @module The regression rule of search quality (docs/search.md, "The rule"): a change to tokenizing or ranking is
 * kept only if no collection loses more than `tolerance` nDCG@10 on either store against the figures committed in
 * `bench/collections/baseline.json`. `npm run eval:search` checks every collection it measured (CI runs it);
 * `--write-baseline` records a run's figures there once a change is kept.
 */
import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {projectRoot} from './cranfield.js'

export interface Baseline {
  /** How much nDCG@10 a collection may lose before the check fails. */
  tolerance: number
  /** Store → collection → nDCG@10, three decimals. */
  ndcg10: Record<string, Record<string, number>>
}

/** One measured figure: the collection, the store, its nDCG@10. */
export interface Measured {
  collection: string
  store: string
  ndcg10: number
}

export function baselinePath(): string {
  return join(projectRoot(), 'bench', 'collections', 'baseline.json')
}

export function readBaseline(path = baselinePath()): Baseline {
  return JSON.parse(readFileSync(path, 'utf8')) as Baseline
}

/**
 * What the rule says of a run: `failures` (a collection more than the tolerance below its figure), `missing`
 * (measured, but without a committed figure: record one) and `risen` (more than the tolerance above: record it,
 * so that the rule guards the new level). A collection not measured (its data absent) is not judged.
 */
export function checkRegression(measured: Measured[], baseline: Baseline): {failures: string[]; missing: string[]; risen: string[]} {
  const failures: string[] = []
  const missing: string[] = []
  const risen: string[] = []
  // Compared at three decimals, as printed and as recorded: a difference in the fourth is noise of the sum.
  const round = (x: number): number => Math.round(x * 1000) / 1000
  for (const m of measured) {
    const figure = baseline.ndcg10[m.store]?.[m.collection]
    const name = `${m.collection} on ${m.store}`
    if (figure === undefined) missing.push(`${name}: nDCG@10 ${m.ndcg10.toFixed(3)} has no recorded figure`)
    else if (round(figure - round(m.ndcg10)) > baseline.tolerance)
      failures.push(`${name}: nDCG@10 ${m.ndcg10.toFixed(3)} is more than ${baseline.tolerance} below the recorded ${figure.toFixed(3)}`)
    else if (round(round(m.ndcg10) - figure) > baseline.tolerance)
      risen.push(`${name}: nDCG@10 ${m.ndcg10.toFixed(3)} is above the recorded ${figure.toFixed(3)}`)
  }
  return {failures, missing, risen}
}

/** The baseline with these figures recorded (others kept), written where the check reads it. */
export function writeBaseline(measured: Measured[], path = baselinePath()): void {
  const baseline = readBaseline(path)
  for (const m of measured) (baseline.ndcg10[m.store] ??= {})[m.collection] = Number(m.ndcg10.toFixed(3))
  writeFileSync(path, `${JSON.stringify(baseline, null, 2)}\n`)
}
