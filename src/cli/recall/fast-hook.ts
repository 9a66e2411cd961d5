/**
 * @module `kb recall --hook <tool>` without oclif (docs/agents.md, "Recall on every prompt"): `bin/run.js` sends a
 * prompt hook here, because loading oclif and the command base costs more than Node's own start and the prompt
 * waits for every millisecond. The same rules as `commands/recall.ts`: no daemon started, a deadline from the
 * process's start, silence on any failure, a local credential sent only to a daemon that proved it owns its data
 * directory (docs/security.md). What it does not handle — an OAuth credential to refresh, a flag it does not know —
 * it leaves to the command, before it has read stdin.
 */
import {RECALL_TOKENS_DEFAULT} from '../../shared/contract.js'
import {httpClient} from '../client/http-transport.js'
import {resolveBaseUrl} from '../config/config.js'
import {effectiveSetting} from '../config/effective.js'
import {resolveCredential} from '../credentials/credentials.js'
import {isLoopbackUrl} from '../daemon/manager.js'
import {probeDaemon} from '../daemon/proof.js'
import {readStdin} from '../input.js'
import {safeText} from '../output/safe-text.js'
import {projectRef, resolveProjectId} from '../project/project.js'
import {hookDeadline, HOOK_TOOLS, hookOutput, readHookInput, type HookTool} from './hook-formats.js'

interface HookArgs {
  tool: HookTool
  baseUrl?: string
  project?: string
  maxTokens?: number
  session?: string
}

/** The hook's arguments, or null when one is not a plain `--flag value` this path knows (the command then reads them). */
function parseArgs(args: string[]): HookArgs | null {
  const out: Partial<HookArgs> = {}
  for (let i = 0; i < args.length; i += 2) {
    const [flag, value] = [args[i]!, args[i + 1]]
    if (value === undefined || value.startsWith('--')) return null
    if (flag === '--hook' && (HOOK_TOOLS as readonly string[]).includes(value)) out.tool = value as HookTool
    else if (flag === '--base-url') out.baseUrl = value
    else if (flag === '--project') out.project = value
    else if (flag === '--session') out.session = value
    else if (flag === '--max-tokens' && /^\d{1,5}$/.test(value)) out.maxTokens = Number(value)
    else return null
  }
  return out.tool ? (out as HookArgs) : null
}

/**
 * Runs the hook for `args` (what follows `recall` on the command line), its output written out; false, having read
 * nothing, when the command should run it instead. The caller exits once it is true (kept-alive connections would
 * hold the process).
 */
export async function runRecallHook(args: string[], version: string): Promise<boolean> {
  const flags = parseArgs(args)
  if (!flags) return false
  const deadline = hookDeadline()
  const baseUrl = resolveBaseUrl(flags.baseUrl).url
  const local = isLoopbackUrl(baseUrl)
  const credential = await resolveCredential(baseUrl, local)
  // An OAuth token may need a refresh first: the command knows how.
  if (credential.kind === 'oauth') return false
  setTimeout(() => process.exit(0), Math.max(0, deadline + 50 - Date.now())).unref()
  try {
    const input = readHookInput(flags.tool, await readStdin())
    if (!input) return true
    if (input.cwd) process.chdir(input.cwd)
    let address: string | undefined
    if (local && credential.daemonDataDir) {
      const probe = await probeDaemon(baseUrl, credential.daemonDataDir, Math.max(250, deadline - Date.now()))
      if (!probe.proven) return true
      address = probe.peer?.address
    }
    const client = httpClient({baseUrl, key: credential.key, userAgent: `kb/${version}`, ...(address ? {address} : {})})
    client.deadline = deadline
    const ref = await projectRef(flags.project, baseUrl)
    const project = ref ? await resolveProjectId(ref, client, baseUrl).catch(() => null) : null
    const budget = flags.maxTokens ?? Number(effectiveSetting('recall.max_tokens').value ?? RECALL_TOKENS_DEFAULT)
    const result = await client.recall({
      prompt: input.prompt,
      max_tokens: budget,
      client: flags.tool,
      ...(project ? {project_id: project} : {}),
      ...(input.session ? {session: input.session} : flags.session ? {session: flags.session} : {}),
    })
    if (result.context !== '')
      await new Promise<void>((resolve) => process.stdout.write(hookOutput(flags.tool, safeText(result.context)), () => resolve()))
  } catch (e) {
    // A prompt hook must never break the prompt: kb down, slow, or refusing is silence (KB_DEBUG shows why).
    if (process.env.KB_DEBUG) process.stderr.write(`kb recall: ${String(e)}\n`)
  }
  return true
}
