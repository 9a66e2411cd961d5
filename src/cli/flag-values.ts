/**
 * @module What the shared flags of list, search and show become (a flag, else a setting, else the default), without
 * oclif: the lean `kb search` (lean-search.ts) reads them too.
 */
import {DETAILS} from '../shared/contract.js'
import type {Detail} from '../shared/types.js'
import {readConfig} from './config/config.js'

/** `--detail`, else config `default_detail`, else the command's default. */
export function detailOr(flag: Detail | undefined, fallback: Detail): Detail {
  const configured = readConfig().default_detail
  return flag ?? ((DETAILS as readonly unknown[]).includes(configured) ? (configured as Detail) : fallback)
}

/** `--limit`, else config `default_limit`, else the command's default. */
export function limitOr(flag: number | undefined, fallback: number): number {
  const configured = readConfig().default_limit
  return flag ?? (typeof configured === 'number' ? configured : fallback)
}

/** The `freshness` query value of `--fresh` / `--stale`. */
export function freshnessFrom(flags: {fresh?: boolean; stale?: boolean}): {freshness?: 'fresh' | 'stale'} {
  return flags.fresh ? {freshness: 'fresh'} : flags.stale ? {freshness: 'stale'} : {}
}
