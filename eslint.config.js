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
