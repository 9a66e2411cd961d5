#!/usr/bin/env node
// The `kb` entry point: oclif reads the shipped manifest, so start-up loads only the command it runs.
const argv = process.argv.slice(2)
if (argv.length === 1 && argv[0] === '--version') {
  // Fast path: scripts and hooks call `kb --version` to probe for kb; loading oclif would triple its cost.
  // oclif's own version output, naming the program (kb) where oclif names the npm package (@kb-tools/kb).
  const {readFileSync} = await import('node:fs')
  const {version} = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))
  process.stdout.write(`kb/${version} ${process.platform}-${process.arch} node-${process.version}\n`)
} else if (!(argv[0] === 'recall' && argv[1] === '--hook' && (await fastHook()))) {
  // `kb show` on a terminal renders the entry's Markdown: the renderer starts loading now, beside oclif's start.
  if (argv[0] === 'show' && process.stdout.isTTY) (await import('../dist/src/cli/render/preload.js')).preloadRenderer(argv.slice(1))
  const {execute} = await import('@oclif/core')
  await execute({dir: import.meta.url})
}

/**
 * A coding agent's prompt hook (`kb recall --hook <tool>`) runs before every prompt: it skips oclif, whose loading
 * costs more than Node's own start (src/cli/recall/fast-hook.ts); false when the command must run it instead.
 */
async function fastHook() {
  const {readFileSync} = await import('node:fs')
  const {version} = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))
  const {runRecallHook} = await import('../dist/src/cli/recall/fast-hook.js')
  if (!(await runRecallHook(argv.slice(1), version))) return false
  // Done and written out: kept-alive connections must not hold the prompt.
  process.exit(0)
}
