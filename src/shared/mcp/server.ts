/**
 * @module The kb MCP server (the SDK's low-level `Server`, so the tools keep plain JSON Schemas and need
 * no zod): tools/list and tools/call over whichever transport the caller connects. Every failure of a
 * tool — bad arguments, an API error, an unreachable daemon — is a tool result with `isError` whose text
 * says what to do, never a protocol error that would end the agent's call.
 */
import {Server} from '@modelcontextprotocol/sdk/server/index.js'
import {CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult} from '@modelcontextprotocol/sdk/types.js'
import type {ErrorObject, ValidateFunction} from 'ajv'
import {AGENT_INSTRUCTIONS} from '../agent-instructions.js'
import {KbError} from '../errors.js'
import {hintFor, withHint} from '../hints.js'
import {createValidator} from '../validator.js'
import type {ToolContext, ToolDef} from './tool-kit.js'
import {TOOLS} from './tools.js'

const ajv = createValidator('json')
const validators = new Map<string, ValidateFunction>()
function validatorFor(tool: ToolDef): ValidateFunction {
  let v = validators.get(tool.name)
  if (!v) validators.set(tool.name, (v = ajv.compile(tool.inputSchema)))
  return v
}

function describeErrors(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? [])
    .map((e) => {
      const at = e.instancePath.replace(/^\//, '').replace(/\//g, '.')
      if (e.keyword === 'additionalProperties')
        return `unknown argument "${[at, (e.params as {additionalProperty: string}).additionalProperty].filter(Boolean).join('.')}"`
      if (e.keyword === 'required')
        return `missing argument "${[at, (e.params as {missingProperty: string}).missingProperty].filter(Boolean).join('.')}"`
      if (e.keyword === 'enum')
        return `${at || 'arguments'} must be one of ${(e.params as {allowedValues: unknown[]}).allowedValues.map((x) => JSON.stringify(x)).join(', ')}`
      return `${at || 'arguments'} ${e.message ?? 'is invalid'}`
    })
    .join('; ')
}

/** An ambiguous short id's candidates (docs/mcp.md, "Short ids"): one line each, the whole id then the title. */
function candidatesText(e: KbError): string {
  const list =
    e.code === 'ambiguous_id' && Array.isArray(e.extra?.candidates) ? (e.extra.candidates as Array<{id?: unknown; title?: unknown}>) : []
  return list.map((c) => `\n- ${String(c.id)}: ${String(c.title).replace(/\s+/g, ' ').trim()}`).join('')
}

function toolError(text: string): CallToolResult {
  return {isError: true, content: [{type: 'text', text}]}
}

/** Runs one tool call to a result; never throws. */
async function callTool(name: string, rawArgs: unknown, ctx: ToolContext): Promise<CallToolResult> {
  const tool = TOOLS.find((t) => t.name === name)
  if (!tool) return toolError(`there is no tool "${name}"; the tools are ${TOOLS.map((t) => t.name).join(', ')}`)
  const args = (rawArgs === undefined ? {} : rawArgs) as Record<string, unknown>
  const validate = validatorFor(tool)
  if (typeof args !== 'object' || args === null || Array.isArray(args) || !validate(args)) {
    return toolError(
      `invalid arguments for ${name}: ${describeErrors(validate.errors) || 'arguments must be an object'}; see the tool's input schema`,
    )
  }
  try {
    const answer = await tool.run(args, ctx)
    return {content: [{type: 'text', text: answer.text}], structuredContent: answer.structured}
  } catch (e) {
    if (e instanceof KbError) {
      return toolError(
        withHint(`${name} failed (${e.code}): ${e.message}`, hintFor(e.code, 'agent', {remote: ctx.remote})) + candidatesText(e),
      )
    }
    return toolError(
      `${name} failed unexpectedly: ${(e as Error).message}; retry, and if it persists look at the daemon log (\`kb daemon logs\`)`,
    )
  }
}

/** A server answering tools/list and tools/call with the kb tools, calling the API as `ctx` says. */
export function createMcpServer(ctx: ToolContext, version: string): Server {
  const server = new Server(
    {name: 'kb', title: 'kb knowledge base', version},
    {capabilities: {tools: {}}, instructions: AGENT_INSTRUCTIONS},
  )
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: TOOLS.map((t) => ({
      name: t.name,
      title: t.title,
      description: t.description,
      inputSchema: t.inputSchema,
      outputSchema: t.outputSchema,
      annotations: {
        title: t.title,
        readOnlyHint: t.readOnly === true,
        destructiveHint: false,
        idempotentHint: t.idempotent === true,
        openWorldHint: false,
      },
    })),
  }))
  // Its searches and reads are recalls, recorded under the agent's name (docs/api.md, "Recall"): the client's own
  // once it said it in initialize, else `mcp` (a stateless HTTP call carries no initialize).
  ctx.api.recallTag ??= {client: 'mcp'}
  // What the tools change is recorded as through MCP (docs/api.md, "History").
  ctx.api.via = 'mcp'
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    // Read at each call, not on `notifications/initialized`: the SDK may run that notification's handler before
    // a still-pending initialize (a client that sends both at once), which would leave the name unknown.
    const name = server.getClientVersion()?.name
    if (name) ctx.api.recallTag = {client: name}
    return callTool(request.params.name, request.params.arguments, ctx)
  })
  return server
}
