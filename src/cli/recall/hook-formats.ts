/**
 * @module What each coding agent's prompt hook sends kb and expects back (docs/agents.md, "Recall on every
 * prompt"): the prompt, working directory and session read from the hook's JSON on stdin, and the context
 * written in the form the tool adds to the model's context.
 */

/** The whole hook, from the process's start to its output: past it the prompt goes on without kb (KB_RECALL_DEADLINE_MS). */
const HOOK_DEADLINE_MS = 900

/** When the hook gives up (ms since the epoch): HOOK_DEADLINE_MS, or KB_RECALL_DEADLINE_MS, after the process started. */
export function hookDeadline(env: NodeJS.ProcessEnv = process.env): number {
  const n = Number(env.KB_RECALL_DEADLINE_MS)
  return Date.now() - process.uptime() * 1000 + (Number.isInteger(n) && n > 0 ? n : HOOK_DEADLINE_MS)
}

/** The tools whose prompt hook can add context (Claude Code's `UserPromptSubmit`). */
export const HOOK_TOOLS = ['claude-code'] as const
export type HookTool = (typeof HOOK_TOOLS)[number]

export interface HookInput {
  prompt: string
  cwd: string | null
  session: string | null
}

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null)

/** The hook's stdin as kb reads it; null when it is not the tool's JSON or has no prompt. */
export function readHookInput(tool: HookTool, text: string): HookInput | null {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return null
  }
  if (typeof parsed !== 'object' || parsed === null) return null
  const o = parsed as Record<string, unknown>
  // Claude Code: {session_id, transcript_path, cwd, hook_event_name: "UserPromptSubmit", prompt}.
  const prompt = str(o.prompt)
  if (tool !== 'claude-code' || prompt === null || prompt.trim() === '') return null
  return {prompt, cwd: str(o.cwd), session: str(o.session_id)}
}

/** The hook's stdout for a context: Claude Code's JSON form, which adds `additionalContext` without showing it as output. */
export function hookOutput(tool: HookTool, context: string): string {
  if (tool === 'claude-code')
    return `${JSON.stringify({hookSpecificOutput: {hookEventName: 'UserPromptSubmit', additionalContext: context}})}\n`
  return ''
}
