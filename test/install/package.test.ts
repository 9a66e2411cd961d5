/**
 * A real install: the package as `npm pack` makes it holds only what runs (no bench, tests or dev entry
 * point; every file built from a source that still exists, so a deleted command cannot come back through a
 * stale dist/), imports nothing from devDependencies, and installed with `npm install -g --omit=dev` into a
 * temporary prefix it runs `kb --version`, `kb add` and `kb search` with the daemon autostarting. And inside
 * this checkout `npx kb` runs our bin, whatever the package is called (the README's first command).
 *
 * Lean on purpose: the tarball is packed from the dist/ `npm test` just built (no second build), packages
 * come from the npm cache when they are there, and better-sqlite3's native binary is handed to its
 * prebuild-install as a local prebuild made from this checkout's own build, instead of compiling it again
 * (≈ 90 s); compiling it is better-sqlite3's business, not this package's.
 */
import {execFile} from 'node:child_process'
import {existsSync, mkdirSync, readFileSync, readdirSync, statSync} from 'node:fs'
import {builtinModules} from 'node:module'
import {join} from 'node:path'
import {promisify} from 'node:util'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {ROOT} from '../helpers/daemon.js'
import {cleanup, freePort, makeUser, run, type KbEnv} from '../cli/helpers.js'

const exec = promisify(execFile)
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  name: string
  version: string
  dependencies: Record<string, string>
  devDependencies: Record<string, string>
}

let user: KbEnv
let tarball: string
let files: string[]
let prefix: string

/** npm as a person runs it (their cache and settings), not under the test user's empty HOME. */
const npm = (
  args: string[],
  o: {cwd?: string; env?: Record<string, string>; timeout?: number} = {},
): Promise<{stdout: string; stderr: string}> =>
  exec('npm', args, {cwd: o.cwd ?? ROOT, env: {...process.env, ...o.env}, timeout: o.timeout ?? 150_000, maxBuffer: 16 * 1024 * 1024})

beforeAll(async () => {
  user = makeUser()
  const out = join(user.root, 'pack')
  mkdirSync(out)
  // --ignore-scripts: `prepare` would rebuild dist/ under the other test files running now.
  const packed = JSON.parse((await npm(['pack', '--json', '--ignore-scripts', '--pack-destination', out])).stdout) as [
    {filename: string; files: {path: string}[]},
  ]
  tarball = join(out, packed[0].filename)
  files = packed[0].files.map((f) => f.path).sort()
  prefix = join(user.root, 'prefix')
}, 60_000)

afterAll(async () => {
  if (user) await cleanup(user)
})

describe('the packed tarball', () => {
  it('holds the bin, the built commands, CLI and daemon, the manifest and the README: nothing else', () => {
    expect(pkg.name).toMatch(/^@[a-z0-9-]+\/kb$/)
    const top = [...new Set(files.map((f) => (f.startsWith('dist/') ? f.split('/').slice(0, 2).join('/') : f)))].sort()
    expect(top).toEqual([
      'README.md',
      'bin/package.json',
      'bin/run.js',
      'dist/bundle',
      'dist/server',
      'dist/src',
      'oclif.manifest.json',
      'package.json',
    ])
    expect(files.filter((f) => /bench|test|\.map$|\.d\.ts$|\.tsbuildinfo$/.test(f))).toEqual([])
  })

  it('is built from a clean dist/: every file has its source, and the manifest names only shipped commands', () => {
    // The bundle's entry points mirror their sources; its shared chunks have none (the bundle is rebuilt whole).
    const stale = files
      .filter((f) => f.startsWith('dist/') && !f.startsWith('dist/bundle/chunks/'))
      .filter((f) => {
        const src = join(ROOT, f.slice(f.startsWith('dist/bundle/') ? 'dist/bundle/'.length : 'dist/'.length).replace(/\.js$/, ''))
        return !existsSync(`${src}.ts`) && !existsSync(`${src}.tsx`)
      })
    expect(stale).toEqual([])
    const manifest = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')) as {commands: Record<string, unknown>}
    const shipped = files
      .filter((f) => f.startsWith('dist/bundle/commands/'))
      // oclif names a folder's index.js after the folder (commands/autocomplete/index.ts is `kb autocomplete`).
      .map((f) =>
        f
          .slice('dist/bundle/commands/'.length, -'.js'.length)
          .replace(/\//g, ':')
          .replace(/:index$/, ''),
      )
    expect(Object.keys(manifest.commands).sort()).toEqual(shipped.sort())
  })

  it('imports only Node built-ins, its own files and its dependencies (never a devDependency)', () => {
    const bare = new Set<string>()
    for (const f of files.filter((p) => p.endsWith('.js'))) {
      const text = readFileSync(join(ROOT, f), 'utf8')
      // Static imports and re-exports at the start of a line, side-effect imports, dynamic import('…') of a literal.
      for (const re of [
        /^(?:import|export)\s[^;'"]*?\sfrom\s*['"]([^'"]+)['"]/gm,
        /^import\s*['"]([^'"]+)['"]/gm,
        /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g,
      ]) {
        for (const m of text.matchAll(re)) if (!m[1]!.startsWith('.')) bare.add(m[1]!)
      }
    }
    const packageOf = (s: string): string => (s.startsWith('@') ? s.split('/').slice(0, 2).join('/') : s.split('/')[0]!)
    const foreign = [...bare]
      .map(packageOf)
      .filter((p) => !p.startsWith('node:') && !builtinModules.includes(p) && !(p in pkg.dependencies))
    expect([...new Set(foreign)]).toEqual([])
    expect(bare.size).toBeGreaterThan(5) // the scan does see imports
  })
})

describe('installed with --omit=dev', () => {
  it('runs kb --version, kb add and kb search, the daemon autostarting', async () => {
    // better-sqlite3 v<version> for this Node's ABI, as its prebuild-install names a prebuilt binary.
    const sqlite = join(ROOT, 'node_modules', 'better-sqlite3')
    const sqliteVersion = (JSON.parse(readFileSync(join(sqlite, 'package.json'), 'utf8')) as {version: string}).version
    const prebuilds = join(user.root, 'prebuilds')
    mkdirSync(prebuilds)
    const name = `better-sqlite3-v${sqliteVersion}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`
    await exec('tar', ['-czf', join(prebuilds, name), '-C', sqlite, 'build/Release/better_sqlite3.node'])
    await npm(
      ['install', '-g', '--prefix', prefix, tarball, '--omit=dev', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'],
      {
        cwd: user.root,
        env: {npm_config_better_sqlite3_local_prebuilds: prebuilds},
      },
    )
    const installed = join(prefix, 'lib', 'node_modules', ...pkg.name.split('/'))
    const deps = readdirSync(join(installed, 'node_modules'))
    for (const dev of Object.keys(pkg.devDependencies).map((d) => d.split('/')[0]!)) expect(deps, `${dev} installed`).not.toContain(dev)

    const bin = join(prefix, 'bin', 'kb')
    const port = await freePort()
    const env = {KB_BASE_URL: `http://127.0.0.1:${port}/api/v1`}
    const version = await run(bin, ['--version'], user, {env})
    expect(version.stdout).toMatch(new RegExp(`^kb/${pkg.version.replace(/\./g, '\\.')} `))
    const add = await run(bin, ['add', 'Installed from the tarball', '--body', 'kb runs without devDependencies'], user, {
      env,
      timeoutMs: 60_000,
    })
    expect(add.code, add.stderr).toBe(0)
    expect(add.stdout.trim()).toMatch(/^[0-9a-f-]{36}$/)
    const search = await run(bin, ['search', 'tarball'], user, {env})
    expect(search.code, search.stderr).toBe(0)
    expect(search.stdout).toContain(`${add.stdout.trim()}\t`)
    // The daemon that answered was autostarted from the installed package, not from this checkout.
    const daemon = JSON.parse(readFileSync(join(user.dataDir, 'daemon.json'), 'utf8')) as {pid: number; url: string}
    expect(daemon.url).toBe(env.KB_BASE_URL)
    if (existsSync('/proc')) expect(readFileSync(`/proc/${daemon.pid}/cmdline`, 'utf8')).toContain(join(installed, 'bin', 'run.js'))
  }, 240_000)
})

describe('npx kb inside this checkout', () => {
  it('runs our bin (the npm name kb belongs to another package)', async () => {
    // --offline: were npx to look for a package named kb, it would fail here instead of running it.
    // A cache of its own: the first npx of a checkout links it into npx's cache and runs its `prepare`,
    // which must not build again what `npm install` built (the README's first command; a rebuild would also
    // remove dist/ under the test files running now).
    const built = statSync(join(ROOT, 'dist', 'commands', 'add.js')).mtimeMs
    const r = await exec('npx', ['--offline', 'kb', '--version'], {
      cwd: ROOT,
      env: {...process.env, npm_config_cache: join(user.root, 'npm-cache')},
      timeout: 120_000,
    })
    expect(r.stdout).toMatch(new RegExp(`^kb/${pkg.version.replace(/\./g, '\\.')} `))
    expect(statSync(join(ROOT, 'dist', 'commands', 'add.js')).mtimeMs).toBe(built)
  }, 150_000)
})
