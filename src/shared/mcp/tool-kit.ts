/**
 * @module What every MCP tool is made of: the client it calls, the shape of a tool, and the small helpers
 * that read its (already validated) arguments and answer with an entry at a detail level.
 */
import {DETAILS} from '../contract.js'
import type {ApiClient} from '../client.js'
import type {Detail, SimilarItem} from '../types.js'
import {entryText, type ToolAnswer} from './render.js'
import type {JsonSchema} from './tool-schemas.js'

/** What the tools need from a kb API client. */
export type KbApi = Pick<
  ApiClient,
  | 'search'
  | 'listEntries'
  | 'getEntry'
  | 'createEntry'
  | 'patchEntry'
  | 'resolve'
  | 'comment'
  | 'publish'
  | 'fork'
  | 'joinProject'
  | 'verify'
  | 'flag'
  | 'withdrawFlag'
  | 'supersede'
  | 'recallTag'
  | 'via'
  | 'review'
  | 'entryId'
>

export interface ToolContext {
  api: KbApi
  /** The project of the agent's working directory (stdio), or null when none is known. */
  projectId?: () => Promise<string | null>
  /** The API is a remote server's (stdio `kb mcp` with a remote base URL): no local daemon to advise starting. */
  remote?: boolean
}

export interface ToolDef {
  name: string
  title: string
  description: string
  inputSchema: JsonSchema
  outputSchema: JsonSchema
  /** Only reads (MCP's readOnlyHint); no tool deletes anything or reaches beyond kb. */
  readOnly?: true
  /** Calling it again with the same arguments changes nothing more (MCP's idempotentHint). */
  idempotent?: true
  run: (args: Record<string, unknown>, ctx: ToolContext) => Promise<ToolAnswer>
}

/**
 * An add's answer with the similar entries the server found (docs/mcp.md, "Similar entries, supersede"): in the
 * structured output, and in the text as lines naming each with the advice to comment instead of keeping a copy.
 */
export function withSimilar(answer: ToolAnswer, similar: SimilarItem[]): ToolAnswer {
  const structured = {...(answer.structured as Record<string, unknown>), similar}
  if (similar.length === 0) return {...answer, structured}
  const lines = similar.map((s) => `- ${s.id} (similarity ${s.similarity.toFixed(2)}): ${oneLineTitle(s.title)}`)
  const text =
    `${answer.text}\n\nSimilar entries already exist; if one says the same, comment on it (comment_on_knowledge) ` +
    `instead of keeping this copy:\n${lines.join('\n')}`
  return {...answer, structured, text}
}

const oneLineTitle = (t: string): string => t.replace(/\s+/g, ' ').trim()

/** A tool, its `run` typed by `ToolDef`. */
export const tool = (def: ToolDef): ToolDef => def

export async function entryAt(ctx: ToolContext, id: string, level: Detail, lead: string): Promise<ToolAnswer> {
  const {entry} = await ctx.api.getEntry(id, level)
  return {structured: {entry}, text: entryText(entry, level, lead)}
}

/** The whole id an argument names: a whole id, or the start or end of one (docs/mcp.md, "Short ids"). */
export async function idArg(ctx: ToolContext, v: unknown): Promise<string> {
  return ctx.api.entryId(str(v)!)
}

export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined)
export const levelOf = (v: unknown, dflt: Detail): Detail => ((DETAILS as readonly unknown[]).includes(v) ? (v as Detail) : dflt)
export const pick = (args: Record<string, unknown>, keys: string[]): Record<string, unknown> =>
  Object.fromEntries(keys.filter((k) => args[k] !== undefined).map((k) => [k, args[k]]))
