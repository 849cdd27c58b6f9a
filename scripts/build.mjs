// Bundles the extension (node/cjs, `vscode` external, undici bundled in), relay-doctor and the chat webview with esbuild.
import { build } from 'esbuild';

const production = process.argv.includes('--production');
const entries = [
  // Activation (dist/extension.js) holds no core: it requires dist/main.js (core, undici, zod) on first use.
  { entryPoints: ['src/extension/extension.ts'], outfile: 'dist/extension.js', platform: 'node', format: 'cjs', external: ['vscode'] },
  { entryPoints: ['src/extension/main.ts'], outfile: 'dist/main.js', platform: 'node', format: 'cjs', external: ['vscode'] },
  // The tokenizer (o200k, 2.4 MB) is its own file, required on the first token count, never at activation.
  { entryPoints: ['src/host/lm/tokenizer.ts'], outfile: 'dist/tokenizer.js', platform: 'node', format: 'cjs' },
  { entryPoints: ['src/cli/main.ts'], outfile: 'dist/cli.js', platform: 'node', format: 'cjs', banner: { js: '#!/usr/bin/env node' } },
  { entryPoints: ['src/webview/main.ts'], outfile: 'dist/webview.js', platform: 'browser', format: 'iife' },
];
for (const e of entries) {
  await build({ ...e, bundle: true, target: 'es2022', sourcemap: !production, minify: production, logLevel: 'warning' });
}
console.log(`built ${entries.map((e) => e.outfile).join(', ')}`);
