/**
 * `relay-doctor tools` as a user runs it (dist/cli.js spawned against the simulator) with a
 * temporary HOME and PATH: a `claude` on the PATH (found, never run) and the terminal's
 * ANTHROPIC_BASE_URL / ANTHROPIC_AUTH_TOKEN at the gateway → Claude Code's row passes with its own
 * request (POST /v1/messages); with /v1 on the address → exit 1, and the cause says /v1; --json's
 * shape; no gateway configured → the states only, and why; the token never printed, only masked.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { maskToken } from '../../src/gateway/mask';
import { startSimulator, type Simulator } from '../sim/server';
import { spawnCli } from './spawnCli';

const CLI = resolve(__dirname, '../../../dist/cli.js');
const T = { skip: existsSync(CLI) ? false : 'run `npm run build` first' };

let sim: Simulator;
let root: string;
before(async () => {
  sim = await startSimulator({ profile: 'real', gateway: 'new-api' });
  root = mkdtempSync(join(tmpdir(), 'relay-tools-'));
  mkdirSync(join(root, 'home'));
  mkdirSync(join(root, 'bin'));
  // Only found on the PATH: relay-doctor never runs a tool.
  writeFileSync(join(root, 'bin/claude'), '#!/bin/sh\nexit 3\n');
  chmodSync(join(root, 'bin/claude'), 0o755);
});
after(() => {
  rmSync(root, { recursive: true, force: true });
  return sim.close();
});

function env(extra: Record<string, string>): Record<string, string> {
  return { HOME: join(root, 'home'), PATH: join(root, 'bin'), LANG: 'en_US.UTF-8', ...extra };
}
const gateway = () => ({ MODEL_RELAY_BASE_URL: sim.url, MODEL_RELAY_TOKEN: sim.tokens.production });
const claude = (base: string) => ({ ANTHROPIC_BASE_URL: base, ANTHROPIC_AUTH_TOKEN: sim.tokens.production });
const run = (args: string[], e: Record<string, string>) => spawnCli(CLI, ['tools', ...args], e, root, 20_000);

function noToken(r: { stdout: string; stderr: string }) {
  assert.ok(!r.stdout.includes(sim.tokens.production), 'the token is not on stdout');
  assert.ok(!r.stderr.includes(sim.tokens.production), 'the token is not on stderr');
}

test('Claude Code set up for the gateway: its own request passes, exit 0, the token only masked', T, async () => {
  sim.reset();
  const r = await run([], env({ ...gateway(), ...claude(sim.url) }));
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /^PASS {2}Claude Code \(set-up\)$/m);
  assert.match(r.stdout, /^SKIP {2}Codex CLI \(not-installed\)$/m);
  assert.ok(
    sim.log.some((x) => x.path === '/v1/messages' && x.status === 200),
    JSON.stringify(sim.log.map((x) => `${x.path} ${x.status}`)),
  );
  assert.match(r.stdout, new RegExp(maskToken(sim.tokens.production).replace(/[.]/g, '\\.')));
  noToken(r);
});

test('ANTHROPIC_BASE_URL ending in /v1: exit 1, and the cause says /v1', T, async () => {
  sim.reset();
  const r = await run([], env({ ...gateway(), ...claude(`${sim.url}/v1`) }));
  assert.equal(r.code, 1, r.stdout + r.stderr);
  assert.match(r.stdout, /^FAIL {2}Claude Code/m);
  const block = r.stdout.slice(r.stdout.indexOf('Claude Code'), r.stdout.indexOf('Codex CLI'));
  assert.match(block, /\/v1/);
  assert.match(r.stdout, /A set-up tool would fail/);
  assert.ok(!sim.log.some((x) => x.path.includes('/messages')), 'nothing sent with the token to a wrong address');
  noToken(r);
});

test('--json: one row per tool with its state, result, cause, fix and probe', T, async () => {
  sim.reset();
  const r = await run(['--json'], env({ ...gateway(), ...claude(sim.url) }));
  assert.equal(r.code, 0, r.stderr);
  const doc = JSON.parse(r.stdout) as {
    ok: boolean;
    tools: Array<{ tool: string; state: string; result: string; cause: string; fix: string; probe: unknown }>;
  };
  assert.equal(doc.ok, true);
  assert.deepEqual(
    doc.tools.map((x) => x.tool),
    ['claude-code', 'codex', 'gemini-cli', 'opencode'],
  );
  const c = doc.tools[0];
  assert.equal(c.state, 'set-up');
  assert.equal(c.result, 'pass');
  assert.equal(typeof c.cause, 'string');
  assert.equal(typeof c.fix, 'string');
  assert.ok(c.probe && typeof c.probe === 'object');
  assert.equal(doc.tools[1].probe, null);
  noToken(r);
});

test('no gateway configured: the states all the same, nothing sent, and why on stderr', T, async () => {
  sim.reset();
  const r = await run([], env(claude(sim.url)));
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stderr, /MODEL_RELAY_BASE_URL is not set\..*none is probed/);
  assert.match(r.stdout, /^SKIP {2}Claude Code \(not-set-up\)$/m);
  assert.equal(sim.log.length, 0);
  noToken(r);
});

test(
  'relay-doctor diagnose shows every tool: Claude Code probed, Codex, Gemini CLI and opencode rows too',
  T,
  async () => {
    sim.reset();
    const r = await spawnCli(CLI, ['diagnose', '--json'], env({ ...gateway(), ...claude(sim.url) }), root, 60_000);
    noToken(r);
    const doc = JSON.parse(r.stdout) as { checks: Array<{ id: string; result: string; cause: string }> };
    const row = (id: string) => doc.checks.find((c) => c.id === id);
    assert.equal(row('tool-claude-code')?.result, 'pass', JSON.stringify(row('tool-claude-code')));
    for (const id of ['tool-codex', 'tool-gemini-cli', 'tool-opencode']) {
      assert.equal(row(id)?.result, 'skipped', id);
      assert.match(row(id)!.cause, /is not installed/);
    }
  },
);
