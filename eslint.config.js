// The linter of `npm test` (npm run lint): typescript-eslint's recommended rules over the
// sources, tests, benches and scripts, plus rules that read the types (a promise nobody awaits,
// a promise where a callback's result is ignored) over the TypeScript of packages/*/src and the
// tests, checked against the packages' tsconfigs (run after `tsc -b`: packages see each other
// through dist). Switched off: what the codebase does on purpose (non-null assertions after
// checks, `any` in the Jinja dialect, unused arguments named for documentation).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '**/golden/**', '**/fixtures/**', '.tools/**', 'examples/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.mjs', '**/*.js'],
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        setImmediate: 'readonly',
        AbortController: 'readonly',
        AbortSignal: 'readonly',
        fetch: 'readonly',
        TextDecoder: 'readonly',
        TextEncoder: 'readonly',
        structuredClone: 'readonly',
        performance: 'readonly',
        queueMicrotask: 'readonly',
        NodeJS: 'readonly',
        Response: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
      'no-control-regex': 'off',
      // a parameter tree walks its parents from `this`
      '@typescript-eslint/no-this-alias': 'off',
      'no-empty': ['error', { allowEmptyCatch: true }],
      'no-cond-assign': ['error', 'except-parens'],
      'prefer-const': ['error', { destructuring: 'all' }],
    },
  },
  {
    files: ['packages/*/src/**/*.ts', 'packages/*/test/**/*.ts', 'test/**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': ['error', { ignoreVoid: false }],
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
    },
  },
  {
    // the tests are in no package's tsconfig (tsc -b builds sources only): one program for all
    files: ['packages/*/test/**/*.ts', 'test/**/*.ts'],
    languageOptions: { parserOptions: { projectService: false, project: './tsconfig.tests.json', tsconfigRootDir: import.meta.dirname } },
    rules: {
      // tap queues a subtest and reports its failure itself: `t.test(...)` unawaited is the idiom
      '@typescript-eslint/no-floating-promises': [
        'error',
        { ignoreVoid: false, allowForKnownSafePromises: [{ from: 'package', name: 'PromiseWithSubtest', package: '@tapjs/core' }] },
      ],
    },
  },
  {
    // the Jinja dialect passes untyped template values through nunjucks
    files: ['packages/jinja/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // the web console runs in the browser
    files: ['packages/master/ui/**/*.js'],
    languageOptions: {
      globals: {
        document: 'readonly',
        window: 'readonly',
        location: 'readonly',
        confirm: 'readonly',
        EventSource: 'readonly',
        Node: 'readonly',
        URLSearchParams: 'readonly',
      },
    },
  },
);
