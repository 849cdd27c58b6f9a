// ESLint (flat config): the layer boundaries and the size limits are rules, run by `npm test`.
//   src/gateway  — the client core: plain Node, imports nothing of the layers above it, never `vscode`
//   src/host     — extension-host logic in plain Node (no `vscode`), used by src/extension
//   src/shared   — the webview ↔ host message protocol: may use the core's *types* only
//   src/webview  — the chat UI in the browser: no Node, no undici, no core
//   src/cli      — relay-doctor: the core, never `vscode`
import { builtinModules } from 'node:module';
import tseslint from 'typescript-eslint';

/** A relative or src/-rooted import of one of the named layers. */
const layer = (...names) => `^(\\.{1,2}/(.*/)?|(.*/)?src/)(${names.join('|')})(/|$)`;
const nodeBuiltins = ['node:*', ...builtinModules, ...builtinModules.map((m) => `${m}/*`)];

const vscodeBan = {
  name: 'vscode',
  message: 'This layer runs in plain Node: no vscode import (put VS Code glue in src/extension).',
};

/** A plain-Node layer: no `vscode`, and none of the named layers. */
const boundary = (folder, regexes, message) => ({
  files: [`${folder}/**/*.ts`],
  rules: {
    'no-restricted-imports': ['error', { paths: [vscodeBan], patterns: regexes.map((regex) => ({ regex, message })) }],
  },
});

/** A layer bundled into the webview: no `vscode`, no undici, no Node modules, and its own layer rules. */
const browserLayer = (folder, rule, why, patterns) => ({
  files: [`${folder}/**/*.ts`],
  rules: {
    [rule]: [
      'error',
      {
        paths: [vscodeBan, { name: 'undici', message: `${why}: no undici (the host makes every request).` }],
        patterns: [{ group: nodeBuiltins, message: `${why}: no Node modules.` }, ...patterns],
      },
    ],
  },
});

/**
 * Activation code: no undici or zod, and nothing but types from the core, the webview, shared, src/host
 * (host/commandIds excepted) or the relative imports `outside` matches.
 */
const activationCode = (files, outside) => ({
  files,
  rules: {
    '@typescript-eslint/no-restricted-imports': [
      'error',
      {
        paths: ['undici', 'zod'].map((name) => ({ name, message: 'Activation code loads no core.' })),
        patterns: [
          {
            regex: `${layer('gateway', 'webview', 'shared')}|/host/(?!commandIds$)|${outside}`,
            allowTypeImports: true,
            message:
              'Activation code (dist/extension.js) loads no core: import types only, or ./lazy/* and host/commandIds; the rest is required from dist/main.js on first use.',
          },
        ],
      },
    ],
  },
});

export default tseslint.config(
  {
    ignores: [
      'out/**',
      'out-*/**',
      'dist/**',
      'node_modules/**',
      '.vscode-test/**',
      'test/e2e/fixtures/**',
      'bench/results.json',
    ],
  },
  {
    files: ['**/*.ts'],
    extends: [tseslint.configs.base],
    rules: {},
  },
  // Type-aware rules that find bugs: a dropped or misused promise, an await of a non-promise.
  {
    files: ['src/**/*.ts', 'test/**/*.ts', 'bench/**/*.ts'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: {
        project: ['./tsconfig.json', './tsconfig.test.json', './tsconfig.vscode-test.json'],
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            { from: 'package', package: 'node:test', name: ['test', 'it', 'describe', 'suite'] },
          ],
        },
      ],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
    },
  },
  // Tests read gateway JSON as `any` on purpose (they assert on it); the promise rules still apply.
  {
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-base-to-string': 'off',
      '@typescript-eslint/restrict-template-expressions': 'off',
      '@typescript-eslint/no-unnecessary-type-assertion': 'off',
    },
  },
  {
    files: ['src/**/*.ts'],
    rules: {
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: false, skipComments: false, IIFEs: true }],
    },
  },
  boundary(
    'src/gateway',
    [layer('extension', 'host', 'cli', 'webview', 'shared')],
    'src/gateway is the bottom layer: it imports nothing from extension, host, cli, webview or shared.',
  ),
  boundary(
    'src/host',
    [layer('extension', 'cli', 'webview')],
    'src/host is plain Node under src/extension: it imports the core and shared only.',
  ),
  boundary('src/cli', [layer('extension', 'host', 'webview')], 'relay-doctor uses the core only.'),
  // Activation code (dist/extension.js) loads no core: types only from anything but vscode, Node,
  // ./lazy/* and host/commandIds; the rest (dist/main.js) is required on first use.
  activationCode(['src/extension/extension.ts'], '^\\./(?!lazy/)'),
  activationCode(['src/extension/lazy/**/*.ts'], '^\\.\\./(?!\\.\\./host/commandIds$)'),
  browserLayer('src/shared', '@typescript-eslint/no-restricted-imports', 'src/shared is bundled into the webview', [
    {
      regex: layer('gateway'),
      allowTypeImports: true,
      message: "src/shared may use the core's types only (import type): its code would end up in the webview bundle.",
    },
    {
      regex: layer('extension', 'host', 'cli', 'webview'),
      message: 'src/shared imports nothing from the layers that use it.',
    },
  ]),
  browserLayer('src/webview', 'no-restricted-imports', 'The webview runs in a browser', [
    {
      regex: layer('gateway', 'extension', 'host', 'cli'),
      message: 'The webview talks to the host through src/shared messages only.',
    },
  ]),
);
