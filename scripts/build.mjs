// Bundles the extension (node/cjs, `vscode` external, undici bundled in), relay-doctor and the chat webview with esbuild.
import { copyFileSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { build } from 'esbuild';

const production = process.argv.includes('--production');
const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
/** relay-doctor's entry (dist/cli.js) answers --version / --help alone and requires the core, dist/cli-core.js, for the rest. */
const cliCoreExternal = {
  name: 'cli-core-external',
  setup(b) {
    b.onResolve({ filter: /^\.\/main$/ }, (args) =>
      args.importer.endsWith('src/cli/entry.ts') ? { path: './cli-core.js', external: true } : undefined,
    );
  },
};
const cliDefine = { RELAY_DOCTOR_VERSION: JSON.stringify(version) };
/** jsonc-parser's `main` is a UMD build whose require('./impl/format') a bundle cannot follow: its ES modules are bundled instead. */
const alias = { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' };
const entries = [
  // Activation (dist/extension.js) holds no core: it requires dist/main.js (core, undici, zod) on first use.
  {
    entryPoints: ['src/extension/extension.ts'],
    outfile: 'dist/extension.js',
    platform: 'node',
    format: 'cjs',
    external: ['vscode'],
  },
  {
    entryPoints: ['src/extension/main.ts'],
    outfile: 'dist/main.js',
    platform: 'node',
    format: 'cjs',
    external: ['vscode'],
    alias,
  },
  // The tokenizer (o200k, 2.4 MB) is its own file, required on the first token count, never at activation.
  { entryPoints: ['src/host/lm/tokenizer.ts'], outfile: 'dist/tokenizer.js', platform: 'node', format: 'cjs' },
  {
    entryPoints: ['src/cli/entry.ts'],
    outfile: 'dist/cli.js',
    platform: 'node',
    format: 'cjs',
    banner: { js: '#!/usr/bin/env node' },
    plugins: [cliCoreExternal],
    define: cliDefine,
  },
  {
    entryPoints: ['src/cli/main.ts'],
    outfile: 'dist/cli-core.js',
    platform: 'node',
    format: 'cjs',
    define: cliDefine,
    alias,
  },
  { entryPoints: ['src/webview/main.ts'], outfile: 'dist/webview.js', platform: 'browser', format: 'iife' },
  // The Usage view's page with the chart.js parts it registers (tree-shaken).
  { entryPoints: ['src/webview/usage/main.ts'], outfile: 'dist/usage.js', platform: 'browser', format: 'iife' },
];
// jsonc-parser's main file is a UMD wrapper whose requires esbuild cannot follow: bundle its ES module build.
for (const e of entries)
  if (e.platform === 'node') e.alias = { ...e.alias, 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' };
// The Chinese bundle (VS Code's l10n format, read by vscode.l10n, @vscode/l10n and relay-doctor) is the
// union of the per-area sources in l10n/zh-cn/*.json; a key defined twice with different texts fails the build.
const zhParts = new URL('../l10n/zh-cn/', import.meta.url);
const zh = {};
for (const file of readdirSync(zhParts)
  .filter((f) => f.endsWith('.json'))
  .sort()) {
  for (const [key, text] of Object.entries(JSON.parse(readFileSync(new URL(file, zhParts), 'utf8')))) {
    if (key in zh && zh[key] !== text)
      throw new Error(`l10n/zh-cn/${file}: "${key}" is translated differently in another file`);
    zh[key] = text;
  }
}
writeFileSync(new URL('../l10n/bundle.l10n.zh-cn.json', import.meta.url), `${JSON.stringify(zh, null, 1)}\n`);
for (const e of entries) {
  await build({
    ...e,
    bundle: true,
    target: 'es2022',
    sourcemap: !production,
    minify: production,
    logLevel: 'warning',
  });
}
// The codicon font and its stylesheet for the webviews (dist/codicons, loaded through webview URIs; CSP font-src).
const codicons = new URL('../dist/codicons/', import.meta.url);
mkdirSync(codicons, { recursive: true });
for (const f of ['codicon.css', 'codicon.ttf'])
  copyFileSync(new URL(`../node_modules/@vscode/codicons/dist/${f}`, import.meta.url), new URL(f, codicons));
console.log(`built ${entries.map((e) => e.outfile).join(', ')}`);
