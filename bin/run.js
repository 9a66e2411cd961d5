#!/usr/bin/env node
// The `kb` entry point. CommonJS (bin/package.json): `kb --version` then never starts Node's ES module loader, and
// runs as fast as `node -e 0` (docs/performance.md, "CLI start-up"). Everything else runs the CLI bundle
// (scripts/bundle-cli.js), where oclif reads the shipped manifest and loads only the command it runs.
'use strict'
const {readFileSync} = require('node:fs')
const {join} = require('node:path')
const {pathToFileURL} = require('node:url')

const argv = process.argv.slice(2)
const ROOT = join(__dirname, '..')
const bundled = (file) => import(pathToFileURL(join(ROOT, 'dist', 'bundle', file)).href)
const packageJson = () => JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))

/**
 * Commands that git hooks and coding agents run, which need neither the help nor the completion plugin: oclif starts
 * them without loading those (docs/performance.md). Help (`--help`, `-h`) still loads everything.
 */
const HOT = new Set(['add', 'check', 'list', 'recall', 'resolve', 'search', 'show'])

async function main() {
  if (argv.length === 1 && argv[0] === '--version') {
    // Scripts and hooks call `kb --version` to probe for kb; loading oclif would triple its cost.
    // oclif's own version output, naming the program (kb) where oclif names the npm package (@kb-tools/kb).
    process.stdout.write(`kb/${packageJson().version} ${process.platform}-${process.arch} node-${process.version}\n`)
    return
  }
  if (argv[0] === 'recall' && argv[1] === '--hook' && (await fastHook())) return
  if (argv[0] === 'search' && (await leanSearch())) return
  // `kb show` on a terminal renders the entry's Markdown: the renderer starts loading now, beside oclif's start.
  if (argv[0] === 'show' && process.stdout.isTTY) (await bundled('src/cli/render/preload.js')).preloadRenderer(argv.slice(1))
  const {execute} = await bundled('src/cli/oclif.js')
  // The root named: oclif would otherwise take bin/package.json, which only makes this file CommonJS, for kb's.
  if (!HOT.has(argv[0]) || argv.includes('--help') || argv.includes('-h')) return execute({loadOptions: {root: ROOT}})
  const pjson = packageJson()
  await execute({loadOptions: {root: ROOT, pjson: {...pjson, oclif: {...pjson.oclif, plugins: []}}}})
}

/**
 * A coding agent's prompt hook (`kb recall --hook <tool>`) runs before every prompt: it skips oclif, whose loading
 * costs more than Node's own start (src/cli/recall/fast-hook.ts); false when the command must run it instead.
 */
async function fastHook() {
  const {runRecallHook} = await bundled('src/cli/recall/fast-hook.js')
  if (!(await runRecallHook(argv.slice(1), packageJson().version))) return false
  // Done and written out: kept-alive connections must not hold the prompt.
  process.exit(0)
}

/**
 * `kb search` as git hooks and agents run it skips oclif, which costs more than the search (src/cli/lean-search.ts);
 * false, having written nothing, when the command must run it (help, a flag it does not read as oclif would, …).
 */
async function leanSearch() {
  const {runLeanSearch} = await bundled('src/cli/lean-search.js')
  return runLeanSearch(argv.slice(1), ROOT, packageJson().version)
}

main().catch((e) => {
  // What oclif's own handler would not see: a build missing its bundle, a file that cannot be read.
  process.stderr.write(`kb: ${e && e.stack ? e.stack : e}\n`)
  process.exitCode = 1
})
