#!/usr/bin/env node
/**
 * @module The CLI bundle (docs/performance.md, "CLI start-up"): esbuild joins what tsc wrote to dist/ for the
 * commands, oclif's help class, its `command_not_found` hook and bin/run.js's own paths, together with
 * @oclif/core and its dependencies, into dist/bundle/ — one file per entry point and shared chunks, so that
 * `kb search` reads a handful of files where it resolved some 230 modules. Every module is in the bundle once
 * (code splitting), so classes such as KbError keep one identity; a dynamic import stays lazy (its own chunk).
 * Left out: npm packages our code imports (loaded from node_modules as before, heavy ones only when needed),
 * and the daemon (dist/server/), which `kb daemon run` imports from where tsc wrote it.
 * Usage: node scripts/bundle-cli.js (run by `npm run build`, after tsc and before `oclif manifest`).
 */
import {readFileSync, readdirSync, rmSync, writeFileSync} from 'node:fs'
import {dirname, join, relative, resolve, sep} from 'node:path'
import {build} from 'esbuild'

const ROOT = resolve(import.meta.dirname, '..')
const DIST = join(ROOT, 'dist')
const OUT = join(DIST, 'bundle')
/** Left where tsc wrote it: the daemon, imported only by `kb daemon run`. */
const UNBUNDLED = join(DIST, 'server') + sep
/** Bundled although it is a package: oclif's runtime, loaded by every command. */
const BUNDLED_PACKAGES = new Set(['@oclif/core'])
/** What oclif requires only to run TypeScript sources (development), never from a build. */
const NEVER_BUNDLED = new Set(['typescript', 'ts-node'])

const jsFiles = (dir) =>
  readdirSync(dir, {recursive: true, withFileTypes: true})
    .filter((e) => e.isFile() && e.name.endsWith('.js'))
    .map((e) => join(e.parentPath, e.name))

const entryPoints = [
  ...jsFiles(join(DIST, 'commands')),
  join(DIST, 'src/cli/help.js'),
  join(DIST, 'src/cli/not-found.js'),
  join(DIST, 'src/cli/lean-search.js'),
  join(DIST, 'src/cli/oclif.js'),
  join(DIST, 'src/cli/recall/fast-hook.js'),
  join(DIST, 'src/cli/render/preload.js'),
]

const outputOf = (file) => join(OUT, relative(DIST, file))
const packageName = (spec) =>
  spec
    .split('/')
    .slice(0, spec.startsWith('@') ? 2 : 1)
    .join('/')

/** Which imports stay outside the bundle: see the module comment. */
const boundary = {
  name: 'kb-boundary',
  setup(b) {
    b.onResolve({filter: /^[^./]/}, (args) => {
      if (args.path.startsWith('node:')) return {path: args.path, external: true}
      const name = packageName(args.path)
      if (NEVER_BUNDLED.has(name)) return {path: args.path, external: true}
      // A package's own dependencies (oclif's) are bundled with it; a package our code imports is not.
      const ours = !args.importer.includes(`${sep}node_modules${sep}`)
      if (ours && !BUNDLED_PACKAGES.has(name)) return {path: args.path, external: true}
      return undefined
    })
    // A file next to a module (a worker it spawns) stays where tsc wrote it, and the bundled module still finds it:
    // the path is written from dist/ here, and from the output file to dist/ once the output is known (below).
    b.onLoad({filter: /\.js$/}, (args) => {
      if (!args.path.startsWith(DIST + sep)) return undefined
      const text = readFileSync(args.path, 'utf8')
      if (!SIBLING_URL.test(text)) return undefined
      const fromDist = (p) =>
        relative(DIST, resolve(dirname(args.path), p))
          .split(sep)
          .join('/')
      return {contents: text.replace(SIBLING_URL, (_, q, p) => `new URL(${q}${TO_DIST}/${fromDist(p)}${q}, import.meta.url)`), loader: 'js'}
    })
    b.onResolve({filter: /^\./}, (args) => {
      const target = resolve(args.resolveDir, args.path)
      if (!target.startsWith(UNBUNDLED)) return undefined
      // Only an entry point's own code has a known place in the output, from which the path is written.
      if (!entryPoints.includes(args.importer))
        throw new Error(`${args.importer} imports the daemon (${args.path}) but is not an entry point`)
      return {
        path: relative(dirname(outputOf(args.importer)), target)
          .split(sep)
          .join('/'),
        external: true,
      }
    })
  },
}

/** `new URL('./worker.js', import.meta.url)`: a file beside the module. */
const SIBLING_URL = /new URL\((['"])(\.{1,2}\/[^'"]+)\1, import\.meta\.url\)/g
/** Stands for the path from an output file to dist/ until the output is written. */
const TO_DIST = '__KB_TO_DIST__'

/** oclif and its dependencies are CommonJS: their require() of Node built-ins needs a require in an ES module. */
const BANNER = "import {createRequire as __kbRequire} from 'node:module';const require=__kbRequire(import.meta.url);"

rmSync(OUT, {recursive: true, force: true})
const {metafile} = await build({
  entryPoints,
  absWorkingDir: ROOT,
  outbase: DIST,
  outdir: OUT,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Whitespace kept: a statement a line, as the package test reads imports (test/install/package.test.ts).
  minifySyntax: true,
  legalComments: 'none',
  chunkNames: 'chunks/[name]-[hash]',
  banner: {js: BANNER},
  plugins: [boundary],
  logLevel: 'warning',
  metafile: true,
})
// Which modules each output file holds, for the start-up guards (test/cli/startup.test.ts); not shipped.
writeFileSync(join(DIST, 'bundle-meta.json'), JSON.stringify(metafile))

for (const file of jsFiles(OUT)) {
  let text = readFileSync(file, 'utf8')
  const toDist = relative(dirname(file), DIST).split(sep).join('/')
  text = text.replaceAll(TO_DIST, toDist)
  // Only the files that call require() keep the banner: each import of node:module costs every command's start.
  if (text.startsWith(BANNER) && !/\brequire\b/.test(text.slice(BANNER.length))) text = text.slice(BANNER.length).replace(/^\n/, '')
  writeFileSync(file, text)
}
