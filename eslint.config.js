// @ts-check
/** @module The one lint configuration: typescript-eslint's recommended rules plus the conventions of docs/architecture.md. */
import js from '@eslint/js'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  {ignores: ['dist/', 'node_modules/', 'coverage/', '.bench-data/']},
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setImmediate: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        performance: 'readonly',
        fetch: 'readonly',
        AbortController: 'readonly',
        TextEncoder: 'readonly',
        TextDecoder: 'readonly',
        structuredClone: 'readonly',
        queueMicrotask: 'readonly',
        Headers: 'readonly',
        Request: 'readonly',
        Response: 'readonly',
        URLSearchParams: 'readonly',
        AbortSignal: 'readonly',
        crypto: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', {argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none'}],
      '@typescript-eslint/consistent-type-imports': ['error', {fixStyle: 'inline-type-imports'}],
      // kb matches control characters on purpose, to refuse or strip them; each such pattern is one character class.
      'no-control-regex': 'off',
      'no-restricted-syntax': ['error', {selector: 'ExportDefaultDeclaration', message: 'Use named exports.'}],
    },
  },
  {
    // Exported functions of product code declare what they return.
    files: ['src/**/*.ts', 'src/**/*.tsx', 'server/**/*.ts', 'commands/**/*.ts'],
    rules: {'@typescript-eslint/explicit-module-boundary-types': 'error'},
  },
  {
    // Tests read arbitrary JSON answers; typing each would only repeat the schemas they check.
    files: ['test/**/*.ts', 'test/**/*.tsx'],
    rules: {'@typescript-eslint/no-explicit-any': 'off'},
  },
  {
    // Size (docs/architecture.md, "Decisions worth knowing"): a function past ~80 lines names its steps, a file past ~350 lines is split.
    // Blank lines and comments do not count. Tests are held to the file size only: a describe block is a list of
    // cases, not a function with steps.
    files: ['src/**/*.ts', 'src/**/*.tsx', 'server/**/*.ts', 'commands/**/*.ts', 'bin/**/*.js', 'bench/**/*.ts', 'bench/**/*.js'],
    rules: {'max-lines-per-function': ['error', {max: 80, skipBlankLines: true, skipComments: true}]},
  },
  {
    files: ['**/*.ts', '**/*.tsx', '**/*.js'],
    rules: {'max-lines': ['error', {max: 350, skipBlankLines: true, skipComments: true}]},
  },
  {
    // Functions allowed past 80 lines, each for a reason; anything else that grows past it is split into named steps.
    files: [
      // Tables, one entry per route (a handler of a few lines each): their length is their count, not one flow.
      'server/routes/knowledge.ts',
      'server/web/actions.ts',
      // The OAuth endpoints' OpenAPI paths: one literal document.
      'server/oauth/openapi-paths.ts',
    ],
    rules: {'max-lines-per-function': 'off'},
  },
  {
    // Files allowed past 350 lines, each for a reason; anything else that grows past it is split.
    files: [
      // The SQLite driver: one object that implements the Store interface (its parts already in sqlite-*.ts);
      // what it shares with PostgreSQL's is being drawn into the SQL vocabulary of server/store/sql/ (issue 23, §1).
      'server/store/sqlite.ts',
      // The migrations: an append-only list, read in order.
      'server/store/sqlite-migrations.ts',
      // One entry's rules (visibility, permissions, versions, comments, fork) behind one service.
      'server/services/knowledge.ts',
      // The wire contract's schemas of every request and response (issue 23, §3 names them from one table).
      'src/shared/schemas.ts',
      // Suites that must stay whole: the store contract every driver passes unchanged (split, a driver could pass
      // half of it); every route against the same hostile inputs; the OpenAPI document against every route; one
      // daemon and its fixtures per resource or endpoint; a table of questions and their answers' order.
      'test/server/store/contract.ts',
      'test/server/fuzz.test.ts',
      'test/server/openapi.test.ts',
      'test/server/endpoints/knowledge.test.ts',
      'test/server/endpoints/errors.test.ts',
      'test/server/endpoints/safe-publish.test.ts',
      'test/server/oauth/token.test.ts',
      'test/server/search/quality.test.ts',
      'test/mcp/http.test.ts',
      'test/cli/tui/reduce.test.ts',
    ],
    rules: {'max-lines': 'off'},
  },
  {
    // The bin is CommonJS (bin/package.json), so that `kb --version` never starts the ES module loader.
    files: ['bin/run.js'],
    languageOptions: {sourceType: 'commonjs', globals: {require: 'readonly', __dirname: 'readonly', __filename: 'readonly'}},
    rules: {'@typescript-eslint/no-require-imports': 'off'},
  },
  {
    // oclif loads each command and hook through its module's default export; type shims mirror a default export.
    files: ['commands/**/*.ts', 'eslint.config.js', 'vitest.config.ts', 'src/cli/not-found.ts', 'bench/*.d.ts'],
    rules: {'no-restricted-syntax': 'off'},
  },
)
