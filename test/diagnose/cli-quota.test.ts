/**
 * `relay-doctor quota [--json]` as users run it (dist/cli.js spawned, configured through the
 * environment) against the simulator's new-api, one-api and strict profiles.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { startSimulator, type Simulator } from '../sim/server';

const CLI = resolve(__dirname, '../../../dist/cli.js');
const sims = {} as Record<'newApi' | 'oneApi' | 'strict', Simulator>;
before(async () => {
  assert.ok(existsSync(CLI), `${CLI} is missing: run "npm run build" first`);
  sims.newApi = await startSimulator({ profile: 'real' });
  sims.oneApi = await startSimulator({ profile: 'real', gateway: 'one-api' });
  sims.strict = await startSimulator({ profile: 'strict' });
});
after(async () => {
  for (const s of Object.values(sims)) await s.close();
});

/** The CLI in a child process; the simulators run in this one, so spawn asynchronously. */
async function run(sim: Simulator, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const { spawn } = await import('node:child_process');
  return new Promise((res, rej) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: { PATH: process.env.PATH ?? '', MODEL_RELAY_BASE_URL: sim.url, MODEL_RELAY_TOKEN: sim.tokens.production },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.on('error', rej);
    child.on('close', (code) => {
      clearTimeout(timer);
      assert.ok(
        !stdout.includes(sim.tokens.production) && !stderr.includes(sim.tokens.production),
        'no full token in the output',
      );
      res({ code, stdout, stderr });
    });
  });
}

test('new-api: quota --json is the documented shape, from the token-usage endpoint', async () => {
  const r = await run(sims.newApi, ['quota', '--json']);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), {
    source: 'usage-token',
    unlimited: false,
    remaining: 7.5,
    used: 2.5,
    granted: 10,
    unit: 'USD',
    expiresAt: null,
  });
  const human = await run(sims.newApi, ['quota']);
  assert.equal(human.code, 0);
  assert.match(human.stdout, /Balance: \$7\.50/);
  assert.match(human.stdout, /Expires: never/);
});

test('one-api: from the billing endpoints', async () => {
  const r = await run(sims.oneApi, ['quota', '--json']);
  assert.equal(r.code, 0, r.stderr);
  const j = JSON.parse(r.stdout) as { source: string; remaining: number; unit: string };
  assert.deepEqual([j.source, j.remaining, j.unit], ['billing', 7.5, 'USD']);
});

test('an expired token: exit 1 with the date; a gateway that tells nothing: exit 1 with cause and fix', async () => {
  sims.newApi.setToken('production', { expiresAt: Math.floor(Date.parse('2026-11-01T00:00:00Z') / 1000) });
  const expired = await run(sims.newApi, ['quota', '--json']);
  sims.newApi.reset();
  assert.equal(expired.code, 0, 'the token-usage endpoint still answers for an expired token');
  assert.match(JSON.parse(expired.stdout).expiresAt as string, /^2026-11-01/);
  const none = await run(sims.strict, ['quota']);
  assert.equal(none.code, 1);
  assert.match(none.stderr, /does not tell a token its balance/);
  assert.match(none.stderr, /cause: .*usage\/token/);
  assert.match(none.stderr, /fix: /);
});
