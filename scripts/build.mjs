// Bundles the extension (node/cjs, `vscode` external, undici bundled in) with esbuild.
import { build } from 'esbuild';
import { existsSync } from 'node:fs';

const production = process.argv.includes('--production');
const entries = [
  { entryPoints: ['src/extension/extension.ts'], outfile: 'dist/extension.js', platform: 'node', format: 'cjs', external: ['vscode'] },
];
if (existsSync('src/cli/main.ts')) {
  entries.push({ entryPoints: ['src/cli/main.ts'], outfile: 'dist/cli.js', platform: 'node', format: 'cjs', banner: { js: '#!/usr/bin/env node' } });
}
if (existsSync('src/webview/main.ts')) {
  entries.push({ entryPoints: ['src/webview/main.ts'], outfile: 'dist/webview.js', platform: 'browser', format: 'iife' });
}
for (const e of entries) {
  await build({ ...e, bundle: true, target: 'es2022', sourcemap: !production, minify: production, logLevel: 'warning' });
}
console.log(`built ${entries.map((e) => e.outfile).join(', ')}`);
