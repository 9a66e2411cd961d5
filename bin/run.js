#!/usr/bin/env node
// The `kb` entry point: oclif reads the shipped manifest, so start-up loads only the command it runs.
const argv = process.argv.slice(2)
if (argv.length === 1 && argv[0] === '--version') {
  // Fast path: scripts and hooks call `kb --version` to probe for kb; loading oclif would triple its cost.
  // oclif's own version output, naming the program (kb) where oclif names the npm package (@kb-tools/kb).
  const {readFileSync} = await import('node:fs')
  const {version} = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))
  process.stdout.write(`kb/${version} ${process.platform}-${process.arch} node-${process.version}\n`)
} else {
  const {execute} = await import('@oclif/core')
  await execute({dir: import.meta.url})
}
