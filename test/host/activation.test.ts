/**
 * Activation stays light: the activation bundle (dist/extension.js) holds no core, undici or zod
 * and stays under 150 KB; everything else is in dist/main.js, loaded on first use. Needs
 * `npm run build` first (npm test does it).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';

const dist = resolve(__dirname, '../../../dist');

test('the activation bundle is small and holds no core', () => {
  const entry = resolve(dist, 'extension.js');
  assert.ok(existsSync(entry), `${entry} is missing: run "npm run build" first`);
  assert.ok(existsSync(resolve(dist, 'main.js')), 'the main part is bundled separately');
  const size = statSync(entry).size;
  assert.ok(size < 150 * 1024, `dist/extension.js is ${size} bytes`);
  const code = readFileSync(entry, 'utf8');
  for (const marker of [
    'node_modules/undici',
    'node_modules/zod',
    'class GatewayClient',
    'sseEventBatches',
    'runDiagnosis',
  ])
    assert.ok(!code.includes(marker), `dist/extension.js must not contain ${marker}`);
  assert.match(code, /main\.js/, 'it loads dist/main.js at runtime');
});
