/**
 * @module `kb recall [text]` and `kb recall --hook <tool>`: the best fresh knowledge for a prompt, within a token
 * budget, each entry with why it was chosen (docs/agents.md, "Recall on every prompt"). As a hook it never
 * slows or breaks the prompt: no daemon is started, everything ends within a second, and any failure is silence.
 */
import {Args, Flags} from '@oclif/core'
import {RECALL_TOKENS_DEFAULT, RECALL_TOKENS_MAX, RECALL_TOKENS_MIN} from '../src/shared/contract.js'
import {KbError} from '../src/shared/errors.js'
import type {RecallResult} from '../src/shared/recall-schemas.js'
import {KbCommand} from '../src/cli/base.js'
import {effectiveSetting} from '../src/cli/config/effective.js'
import {readStdin} from '../src/cli/input.js'
import {safeText} from '../src/cli/output/safe-text.js'
import {hookDeadline, HOOK_TOOLS, hookOutput, readHookInput, type HookTool} from '../src/cli/recall/hook-formats.js'

export default class Recall extends KbCommand<typeof Recall> {
  static override summary = 'Recall the knowledge that bears on a prompt (for agents\u2019 prompt hooks)'
  static override description =
    'Searches kb with the text (the project of the checkout), keeps the fresh entries that match it well, and prints them within a token budget ' +
    '(--max-tokens, else the config key recall.max_tokens, default 300), each with its id, freshness and the words it matched; secrets are masked. ' +
    'Every recall is recorded (`kb agent log`). With --hook <tool> it reads the tool\u2019s hook JSON on stdin and answers in the tool\u2019s format; ' +
    'it never starts the daemon, gives up after a second, and prints nothing (exit 0) when nothing is relevant or anything fails.'
  static override examples = [
    '<%= config.bin %> recall "ECONNREFUSED when the tests start the daemon"',
    'echo \'{"prompt":"why does the pool time out?","cwd":"."}\' | <%= config.bin %> recall --hook claude-code',
  ]
  // stdin is read here, not by oclif's parser: a hook's stdin is JSON, not the text.
  static override args = {text: Args.string({description: 'the prompt or question (else stdin)', ignoreStdin: true})}
  static override flags = {
    hook: Flags.option({
      options: HOOK_TOOLS,
      description: 'read the prompt from this tool\u2019s hook JSON on stdin and answer in its format',
    })(),
    'max-tokens': Flags.integer({
      description: `token budget of the context (${RECALL_TOKENS_MIN}\u2013${RECALL_TOKENS_MAX})`,
      min: RECALL_TOKENS_MIN,
      max: RECALL_TOKENS_MAX,
    }),
    session: Flags.string({description: 'the agent session this recall belongs to (recorded)'}),
  }

  protected override sendQueueAfter = false

  async run(): Promise<RecallResult | null> {
    if (this.flags.hook) return this.hook(this.flags.hook)
    const text = this.args.text ?? (await readStdin())
    if (text.trim() === '') throw new KbError('usage', 'recall needs text: kb recall "<prompt>" (or pipe it on stdin)')
    const result = await this.recall(text, {client: 'kb-cli', ...(this.flags.session ? {session: this.flags.session} : {})})
    if (this.jsonEnabled()) return result
    if (result.context === '') this.note('nothing relevant in kb for that')
    else this.out(safeText(result.context))
    return result
  }

  /** The hook: silent on every failure, bounded in time, no daemon started. */
  private async hook(tool: HookTool): Promise<null> {
    const deadline = hookDeadline()
    const timer = setTimeout(() => process.exit(0), Math.max(0, deadline + 50 - Date.now()))
    timer.unref()
    try {
      const input = readHookInput(tool, await readStdin())
      if (!input) return null
      if (input.cwd) process.chdir(input.cwd)
      const result = await this.recall(input.prompt, {client: tool, ...(input.session ? {session: input.session} : {})}, deadline)
      if (result.context !== '') process.stdout.write(hookOutput(tool, safeText(result.context)))
    } catch (e) {
      // A prompt hook must never break the prompt: kb down, slow, or refusing is silence (KB_DEBUG shows why).
      if (process.env.KB_DEBUG) process.stderr.write(`kb recall: ${String(e)}\n`)
    }
    return null
  }

  private async recall(prompt: string, who: {client: string; session?: string}, deadline?: number): Promise<RecallResult> {
    const client = await this.client()
    if (deadline !== undefined) client.deadline = deadline
    const project = await this.projectId().catch(() => null)
    const budget = this.flags['max-tokens'] ?? Number(effectiveSetting('recall.max_tokens').value ?? RECALL_TOKENS_DEFAULT)
    return client.recall({prompt, max_tokens: budget, ...(project ? {project_id: project} : {}), ...who})
  }

  /** A hook never starts the daemon: that can take seconds, and the prompt cannot wait. */
  protected override async ensureServer(): Promise<void> {
    if (this.flags.hook) return
    return super.ensureServer()
  }
}
