/**
 * The diagnosis engine against the gateway simulator on 127.0.0.1, one test per scenario of
 * issue 5 (both simulator profiles where they differ). Every run has short timeouts; no test waits
 * for a retry: the engine never retries.
 */
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  renderMarkdown,
  renderTable,
  reportToJson,
  runDiagnosis,
  type CheckId,
  type DiagnosisInput,
  type DiagnosisReport,
  type ToolsDiagnosisInput,
} from '../../src/gateway';
import { oneGateway } from '../fakes/diagnosis';
import { maskToken } from '../../src/gateway/mask';
import { toolStatuses } from '../../src/gateway/tools';
import { toolIdentity } from '../../src/gateway/tools/common';
import type { ToolGateway, ToolsEnvironment } from '../../src/gateway/tools/types';
import { startSimulator, type Simulator } from '../sim/server';
import { deadPort } from '../gateway/helpers';

let strict: Simulator;
let real: Simulator;
let home: string;

before(async () => {
  strict = await startSimulator({ profile: 'strict', hosts: 2 });
  real = await startSimulator({ profile: 'real' });
  home = await mkdtemp(join(tmpdir(), 'relay-diag-home-'));
});
after(async () => {
  await strict.close();
  await real.close();
  await rm(home, { recursive: true, force: true });
});
beforeEach(() => {
  strict.reset();
  real.reset();
});

const T = { timeout: 15_000 };
const MODELS = { chat: 'gpt-4o-mini', native: 'claude-sonnet-4-5' };

function diagnose(sim: Simulator, over: Partial<DiagnosisInput> = {}): Promise<DiagnosisReport> {
  return runDiagnosis({
    baseUrl: sim.url,
    token: sim.tokens.production,
    tokenName: 'production',
    models: MODELS,
    timeouts: { requestMs: 3_000, totalMs: 12_000 },
    // Claude Code's row sends Claude Code's own request: the spec's gateway (strict) refuses it (Bearer and no
    // native-version header), new-api (real) serves it; the strict runs have no tools' rows.
    ...(sim === real
      ? { tools: claudeOnly(sim, { ANTHROPIC_BASE_URL: sim.url, ANTHROPIC_AUTH_TOKEN: sim.tokens.production }) }
      : {}),
    ...over,
  });
}

/**
 * The terminal tools' states as the editor reads them, against the simulator with its production
 * token: only `claude` is on the PATH, with `env` in new terminals and no settings file (an empty home).
 */
function claudeOnly(sim: Simulator, env: Record<string, string>): ToolsDiagnosisInput {
  const tools: ToolsEnvironment = {
    env,
    homeDir: home,
    workspaceTrusted: false,
    which: (command) => Promise.resolve(command === 'claude' ? '/usr/local/bin/claude' : undefined),
    systemFiles: { claudeManagedSettings: null, geminiSystemSettings: null },
  };
  const gateway = (models: ToolGateway['models']): ToolGateway => ({
    id: 'sim',
    name: 'sim',
    baseUrl: sim.url,
    maskedToken: maskToken(sim.tokens.production),
    ...toolIdentity('sim'),
    models,
  });
  return { env, statuses: (models) => toolStatuses(tools, gateway(models ?? [])) };
}

function check(r: DiagnosisReport, id: CheckId) {
  const c = r.checks.find((x) => x.id === id);
  assert.ok(c, `check ${id} is in the report (have: ${r.checks.map((x) => x.id).join(', ')})`);
  return c;
}

function results(r: DiagnosisReport): Record<string, string> {
  return Object.fromEntries(r.checks.map((c) => [c.id, c.result]));
}

function noFullToken(r: DiagnosisReport, token: string) {
  for (const text of [
    JSON.stringify(r),
    renderMarkdown(oneGateway(r), { secrets: [token] }),
    renderTable(oneGateway(r), { secrets: [token] }),
    JSON.stringify(reportToJson(r, { secrets: [token] })),
  ]) {
    assert.ok(!text.includes(token), 'the full token never appears in the report');
  }
}

for (const profile of ['strict', 'real'] as const) {
  test(`right configuration (${profile}): every check passes, in the issue's order`, T, async () => {
    const sim = profile === 'strict' ? strict : real;
    const progress: string[] = [];
    const r = await diagnose(sim, { onProgress: (c) => progress.push(c.id) });
    assert.deepEqual(
      r.checks.map((c) => c.id),
      [
        'base-url',
        'reachability',
        'token',
        'visibility',
        'generate-chat',
        'generate-native',
        // The real profile lists o3-pro as new-api does (["openai-response"]): the token sees a responses model.
        ...(profile === 'real' ? ['generate-responses'] : []),
        'arrival',
        'native-path',
        'stream-compatible',
        'stream-native',
        ...(profile === 'real' ? ['stream-responses'] : []),
        // one row per terminal tool where the tools' states are given (Claude Code alone is installed)
        ...(profile === 'real'
          ? ['tool-claude-code', 'tool-codex', 'tool-gemini-cli', 'tool-opencode', 'tool-copilot-cli']
          : []),
        'wrong-place',
        'proxy',
      ],
    );
    assert.deepEqual(
      progress,
      r.checks.map((c) => c.id),
      'onProgress reports each check as it completes',
    );
    // The strict profile (the spec's gateway) has no usage log an sk- token can read: arrival is skipped there.
    // The tools that are not installed are skipped.
    const skipped = (id: CheckId) =>
      (profile === 'strict' && id === 'arrival') ||
      ['tool-codex', 'tool-gemini-cli', 'tool-opencode', 'tool-copilot-cli'].includes(id);
    for (const c of r.checks) assert.equal(c.result, skipped(c.id) ? 'skipped' : 'pass', `${c.id}: ${c.cause}`);
    if (profile === 'real')
      assert.match(
        check(r, 'tool-claude-code').details!.join('\n'),
        /Probe: POST \/v1\/messages\?beta=true answered 200/,
      );
    assert.equal(r.ok, true);
    assert.equal(check(r, 'token').httpStatus, 200);
    assert.equal(check(r, 'generate-native').httpStatus, 200);
    assert.match(check(r, 'native-path').cause, /\/v1\/messages: it ends in a single \/v1\/messages/);
    assert.equal(check(r, 'token').maskedToken, r.maskedToken);
    assert.match(r.maskedToken!, /^sk-\w{3}\.\.\.\w{4}$/);
    noFullToken(r, sim.tokens.production);
  });
}

test('bad token: GET /v1/models → 401 explained; later checks are skipped, not hammered', T, async () => {
  const bad = `sk-${'x'.repeat(48)}`;
  const r = await diagnose(strict, { token: bad });
  const t = check(r, 'token');
  assert.equal(t.result, 'fail');
  assert.equal(t.httpStatus, 401);
  assert.match(t.cause, /missing, mistyped, disabled, or sent in the wrong header format/);
  assert.deepEqual(t.fixAction, { kind: 'switch-token' });
  assert.equal(check(r, 'generate-chat').result, 'skipped');
  assert.equal(check(r, 'stream-native').result, 'skipped');
  assert.equal(strict.log.filter((l) => /chat\/completions|messages/.test(l.path)).length, 0);
  assert.equal(r.ok, false);
  noFullToken(r, bad);
});

test('disabled token and a token stored with "Bearer ": 401 with the likely cause', T, async () => {
  const disabled = await diagnose(strict, { token: strict.tokens.disabled });
  assert.equal(check(disabled, 'token').httpStatus, 401);
  const bearer = await diagnose(strict, { token: `Bearer ${strict.tokens.production}` });
  assert.equal(check(bearer, 'token').result, 'fail');
  assert.match(check(bearer, 'token').cause, /Bearer/);
});

test('no token: the token check fails with add-token, and nothing needing it is sent', T, async () => {
  const r = await diagnose(strict, { token: undefined });
  const t = check(r, 'token');
  assert.equal(t.result, 'fail');
  assert.deepEqual(t.fixAction, { kind: 'add-token' });
  assert.equal(check(r, 'generate-chat').result, 'skipped');
  assert.equal(check(r, 'reachability').result, 'pass', 'the host itself is reachable');
});

for (const profile of ['strict', 'real'] as const) {
  test(`token of a group that cannot use the model, model not listed (${profile})`, T, async () => {
    const sim = profile === 'strict' ? strict : real;
    const r = await diagnose(sim, { token: sim.tokens.test, tokenName: 'test' });
    const v = check(r, 'visibility');
    assert.equal(v.result, 'fail');
    assert.match(
      v.cause,
      /"claude-sonnet-4-5" is not in this token's model list: the token's group probably cannot see it/,
    );
    assert.equal(check(r, 'generate-chat').result, 'pass', 'gpt-4o-mini is usable by the chat-only group');
    const g = check(r, 'generate-native');
    assert.equal(g.result, 'fail');
    // Spec 4 rule 2 / 7: a model outside the token's group is 403 (strict), 503 model_not_found (new-api).
    assert.equal(g.httpStatus, profile === 'strict' ? 403 : 503);
    assert.match(g.cause, /group cannot use the model \(it is not even in the token's model list\)/);
    assert.deepEqual(g.fixAction, { kind: 'switch-token' });
    assert.equal(check(r, 'stream-native').result, 'skipped');
  });

  test(`token of a group that cannot use the model although it is listed (${profile}): spec 7 rule 1`, T, async () => {
    const sim = profile === 'strict' ? strict : real;
    const r = await diagnose(sim, { models: { chat: 'gpt-4o', native: 'claude-sonnet-4-5' } });
    assert.equal(check(r, 'visibility').result, 'pass');
    const g = check(r, 'generate-chat');
    assert.equal(g.result, 'fail');
    assert.equal(g.httpStatus, profile === 'strict' ? 403 : 503);
    assert.match(g.cause, /GET \/v1\/models lists "gpt-4o", but the generation call answered/);
    // Where the gateway publishes its pricing (real), the groups that may use the model are named.
    if (profile === 'strict') assert.match(g.cause, /token's group, the model id or the model's capability range/);
    else
      assert.match(g.cause, /gpt-4o is enabled for the groups vip, svip; this token's group \(default\) cannot use it/);
    if (profile === 'real') assert.match(g.cause, /model_not_found.*not a temporary fault/);
    assert.equal(
      sim.log.filter((l) => l.path === '/v1/chat/completions').length,
      1,
      'a 503 model_not_found is not retried',
    );
  });
}

for (const profile of ['strict', 'real'] as const) {
  test(
    `base URL with /v1 (${profile}): the finding, its fix action, and the /v1/v1/messages 404 shown`,
    T,
    async () => {
      const sim = profile === 'strict' ? strict : real;
      const r = await diagnose(sim, { baseUrl: `${sim.url}/v1` });
      const b = check(r, 'base-url');
      assert.equal(b.result, 'warn');
      assert.match(b.cause, /ends in \/v1/);
      assert.deepEqual(b.fixAction, { kind: 'set-base-url', value: sim.url });
      const p = check(r, 'native-path');
      assert.equal(p.result, 'fail');
      assert.equal(p.httpStatus, 404);
      assert.equal(p.url, `${sim.url}/v1/v1/messages`);
      assert.match(p.cause, /\/v1\/v1\/messages/);
      assert.deepEqual(p.fixAction, { kind: 'set-base-url', value: sim.url });
      assert.ok(
        sim.log.some((l) => l.path === '/v1/v1/messages' && l.status === 404),
        'the 404 really came from the gateway',
      );
      assert.equal(check(r, 'generate-native').result, 'pass', 'this client itself strips /v1');
      assert.equal(r.ok, false);
    },
  );
}

test('base URL with a trailing slash: a warning with the cleaned value, nothing fails', T, async () => {
  const r = await diagnose(strict, { baseUrl: `${strict.url}/` });
  const b = check(r, 'base-url');
  assert.equal(b.result, 'warn');
  assert.match(b.cause, /ended with a slash/);
  assert.deepEqual(b.fixAction, { kind: 'set-base-url', value: strict.url });
  assert.equal(check(r, 'native-path').result, 'pass');
  assert.equal(r.ok, true, JSON.stringify(results(r)));
});

test('a pasted /v1/chat/completions: named, repaired, and the native 404 proven', T, async () => {
  const r = await diagnose(strict, { baseUrl: `${strict.url}/v1/chat/completions` });
  const b = check(r, 'base-url');
  assert.equal(b.result, 'warn');
  assert.match(b.cause, /full endpoint was pasted/);
  assert.deepEqual(b.fixAction, { kind: 'set-base-url', value: strict.url });
  const p = check(r, 'native-path');
  assert.equal(p.result, 'fail');
  assert.equal(p.httpStatus, 404);
  assert.equal(p.url, `${strict.url}/v1/chat/completions/v1/messages`);
  assert.equal(check(r, 'generate-chat').result, 'pass');
});

for (const profile of ['strict', 'real'] as const) {
  test(`unknown model (${profile}): not in the list, and generation refused`, T, async () => {
    const sim = profile === 'strict' ? strict : real;
    const r = await diagnose(sim, { models: { chat: 'gpt-4o-mini-typo' } });
    const v = check(r, 'visibility');
    assert.equal(v.result, 'fail');
    assert.match(v.cause, /"gpt-4o-mini-typo" is not in this token's model list/);
    assert.match(v.cause, /Similar visible ids: gpt-4o-mini/);
    const g = check(r, 'generate-chat');
    assert.equal(g.result, 'fail');
    assert.ok([403, 404, 503].includes(g.httpStatus!), `status ${g.httpStatus}`);
  });
}

test('primary down with a working backup: which hosts work, and the rest runs on the backup', T, async () => {
  const port = await deadPort();
  const r = await diagnose(strict, { baseUrl: `http://127.0.0.1:${port}`, backupUrls: [strict.urls[1]] });
  const c = check(r, 'reachability');
  assert.equal(c.result, 'warn');
  assert.match(c.cause, /does not work: .*ECONNREFUSED|connections/);
  assert.match(c.cause, new RegExp(`backup ${new URL(strict.urls[1]).host} works`));
  assert.match(c.fix, /Nothing is needed to keep working: requests go to the backup/);
  assert.doesNotMatch(c.fix, /configure a backup/, 'a backup is configured and serving');
  assert.equal(r.usedBase, strict.urls[1]);
  assert.equal(check(r, 'generate-chat').result, 'pass');
  assert.equal(check(r, 'stream-native').result, 'pass');
  assert.ok(strict.log.every((l) => l.host === 1));
});

test('primary answering 503 (down behind its proxy) with a working backup', T, async () => {
  strict.fault({ kind: 'status', status: 503, host: 0 });
  const r = await diagnose(strict, { baseUrl: strict.urls[0], backupUrls: [strict.urls[1]] });
  assert.equal(check(r, 'reachability').result, 'warn');
  assert.equal(check(r, 'reachability').httpStatus, 503);
  assert.equal(r.usedBase, strict.urls[1]);
  assert.equal(check(r, 'generate-native').result, 'pass');
});

test('all hosts down: reachability fails, the rest is skipped quickly', T, async () => {
  const p1 = await deadPort();
  const p2 = await deadPort();
  const r = await diagnose(strict, { baseUrl: `http://127.0.0.1:${p1}`, backupUrls: [`http://127.0.0.1:${p2}`] });
  assert.equal(check(r, 'reachability').result, 'fail');
  assert.match(check(r, 'reachability').cause, /No host works/);
  assert.equal(check(r, 'token').result, 'skipped');
  assert.ok(r.durationMs < 5_000);
});

test('429 with Retry-After: reported with its wait, never retried, and no further request is sent', T, async () => {
  strict.fault({ kind: 'status', status: 429, retryAfter: '30', path: '/v1/chat/completions' });
  const started = Date.now();
  const r = await diagnose(strict);
  const g = check(r, 'generate-chat');
  assert.equal(g.result, 'fail');
  assert.equal(g.httpStatus, 429);
  assert.equal(g.retryAfterMs, 30_000);
  assert.match(g.cause, /429 rate limited/);
  assert.match(g.cause, /30 s \(Retry-After\)/);
  assert.match(g.fix, /Wait 30 s/);
  assert.equal(strict.log.filter((l) => l.path === '/v1/chat/completions').length, 1, 'not retried');
  for (const id of ['generate-native', 'stream-compatible', 'stream-native'] as const) {
    assert.equal(check(r, id).result, 'skipped', id);
    assert.match(check(r, id).cause, /429/);
  }
  assert.equal(strict.log.filter((l) => l.path === '/v1/messages').length, 0, 'nothing sent after the 429');
  assert.ok(Date.now() - started < 5_000, 'no waiting for the Retry-After');
});

test('429 on every request: reachability names it and the run stops there', T, async () => {
  strict.fault({ kind: 'status', status: 429, retryAfter: '12' });
  const r = await diagnose(strict);
  const c = check(r, 'reachability');
  assert.equal(c.result, 'fail');
  assert.equal(c.httpStatus, 429);
  assert.match(c.cause, /12 s \(Retry-After\)/);
  assert.equal(check(r, 'token').result, 'skipped');
  assert.equal(strict.log.length, 1);
});

test('5xx: reported as a temporary fault with the wait that applies, not retried', T, async () => {
  strict.fault({ kind: 'status', status: 500, path: '/v1/messages' });
  const r = await diagnose(strict);
  const g = check(r, 'generate-native');
  assert.equal(g.result, 'fail');
  assert.equal(g.httpStatus, 500);
  assert.match(g.cause, /temporary service or upstream fault \(5xx\)/);
  assert.match(g.fix, /1 to 2 minutes/);
  assert.equal(strict.log.filter((l) => l.path === '/v1/messages').length, 1);
  assert.equal(check(r, 'generate-chat').result, 'pass');
  assert.equal(check(r, 'stream-native').result, 'skipped');
});

test('buffering proxy: a stream that arrives in one burst is named, with the disable-stream fix', T, async () => {
  // The upstream produces tokens over time (slowChunks); the proxy holds them and delivers one burst.
  strict.fault({ kind: 'buffer' });
  strict.fault({ kind: 'slowChunks', ms: 30 });
  const r = await diagnose(strict);
  for (const id of ['stream-compatible', 'stream-native'] as const) {
    const s = check(r, id);
    assert.equal(s.result, 'warn', `${id}: ${s.cause}`);
    assert.match(s.cause, /one burst/);
    assert.match(s.cause, /buffers responses/);
    assert.deepEqual(s.fixAction, { kind: 'disable-stream' });
  }
  assert.equal(check(r, 'generate-chat').result, 'pass');
  // the same slow upstream without a buffering proxy: no false alarm
  strict.reset();
  strict.fault({ kind: 'slowChunks', ms: 30 });
  const flowing = await diagnose(strict);
  for (const id of ['stream-compatible', 'stream-native'] as const) {
    assert.equal(check(flowing, id).result, 'pass', check(flowing, id).cause);
    assert.match(check(flowing, id).cause, /flowed progressively/);
  }
});

test('a failing stream where the non-streamed call works: named as such', T, async () => {
  strict.fault({ kind: 'truncate', afterEvents: 2, path: '/v1/messages' });
  strict.fault({ kind: 'truncate', afterEvents: 2, path: '/v1/chat/completions' });
  const r = await diagnose(strict);
  assert.equal(check(r, 'generate-chat').result, 'pass');
  assert.equal(check(r, 'generate-native').result, 'pass');
  for (const id of ['stream-compatible', 'stream-native'] as const) {
    const s = check(r, id);
    assert.equal(s.result, 'fail', `${id}: ${s.cause}`);
    assert.match(s.cause, /without streaming works/);
    assert.deepEqual(s.fixAction, { kind: 'disable-stream' });
  }
});

test(
  "an error the gateway sends inside the stream keeps its meaning: the upstream's fault, not the proxy's",
  T,
  async () => {
    strict.fault({ kind: 'midStreamError', afterEvents: 2, path: '/v1/messages' });
    const r = await diagnose(strict);
    assert.equal(check(r, 'generate-native').result, 'pass');
    const s = check(r, 'stream-native');
    assert.equal(s.result, 'fail', s.cause);
    assert.match(s.cause, /temporary service or upstream fault \(5xx\)/);
    assert.equal(s.fixAction, undefined, 'turning streaming off would not help an overloaded upstream');
  },
);

test('wrong place: an HTML page where the API should answer is named, with the URL called', T, async () => {
  strict.fault({ kind: 'html' });
  const r = await diagnose(strict);
  const w = check(r, 'wrong-place');
  assert.equal(w.result, 'fail');
  assert.equal(w.url, `${strict.url}/v1/models`);
  assert.match(w.cause, /HTML/);
  assert.equal(check(r, 'reachability').result, 'fail');
});

test('a proxy that does not reach the gateway: proxy and reachability fail with the cause', T, async () => {
  const port = await deadPort();
  const r = await diagnose(strict, { proxy: { proxy: `http://127.0.0.1:${port}`, env: {} } });
  const p = check(r, 'proxy');
  assert.equal(p.result, 'fail');
  assert.match(
    p.cause,
    new RegExp(
      `through the proxy http://127\\.0\\.0\\.1:${port} \\(from the http\\.proxy setting\\) do not reach the gateway`,
    ),
  );
  assert.equal(check(r, 'reachability').result, 'fail');
  // NO_PROXY for the gateway host: direct again
  const bypass = await diagnose(strict, {
    proxy: {
      env: { HTTPS_PROXY: `http://127.0.0.1:${port}`, HTTP_PROXY: `http://127.0.0.1:${port}`, NO_PROXY: '127.0.0.1' },
    },
  });
  assert.equal(check(bypass, 'proxy').result, 'pass');
  assert.match(check(bypass, 'proxy').cause, /no-proxy list/);
  assert.equal(check(bypass, 'generate-chat').result, 'pass');
});

test('bounded: a gateway that never answers in time is a timeout, and the run ends within its budget', T, async () => {
  strict.fault({ kind: 'latency', ms: 5_000 });
  const started = Date.now();
  const r = await diagnose(strict, { timeouts: { requestMs: 400, totalMs: 3_000 } });
  assert.equal(check(r, 'reachability').result, 'fail');
  assert.match(check(r, 'reachability').cause, /No answer|timed out|within/);
  assert.ok(Date.now() - started < 3_000, `took ${Date.now() - started} ms`);
});

test('markdown report: a table row per check, masked token only, ready for a ticket', T, async () => {
  const r = await diagnose(strict, { baseUrl: `${strict.url}/v1` });
  const md = renderMarkdown(oneGateway(r), { secrets: [strict.tokens.production] });
  assert.match(md, /^## Model Relay diagnosis/);
  assert.match(md, /\| ❌ \| Native surface path \| 404 \|/);
  assert.ok(md.includes(r.maskedToken!));
  assert.ok(!md.includes(strict.tokens.production));
  const table = renderTable(oneGateway(r), { width: 100 });
  assert.match(table, /FAIL {3}Native surface path/);
  assert.match(table, /\/v1\/v1\/messages/);
});

test(
  'a 307 on GET /v1/models is not "reachable": reachability fails and names the target; nothing follows it',
  T,
  async () => {
    strict.fault({ kind: 'redirect', status: 307, location: 'https://console.example.com/login', path: '/v1/models' });
    const r = await diagnose(strict);
    const c = check(r, 'reachability');
    assert.equal(c.result, 'fail');
    assert.equal(c.httpStatus, 307);
    assert.match(c.cause, /redirects \/v1\/models to console\.example\.com/);
    assert.match(c.cause, /never follows a redirect with your token/);
    assert.equal(check(r, 'token').result, 'skipped');
  },
);

for (const profile of ['strict', 'real'] as const) {
  test(
    `a reasoning model (${profile}): generation and streaming pass on both surfaces, with a one-token probe`,
    T,
    async () => {
      const sim = profile === 'strict' ? strict : real;
      const r = await diagnose(sim, { models: { chat: 'deepseek-reasoner', native: 'deepseek-reasoner' } });
      for (const id of ['generate-chat', 'generate-native', 'stream-compatible', 'stream-native'] as const)
        assert.equal(check(r, id).result, 'pass', `${id}: ${check(r, id).cause}`);
      for (const id of ['generate-chat', 'generate-native'] as const) {
        assert.match(check(r, id).cause, /max_tokens: 1\).*spent that budget on reasoning/);
        assert.ok(check(r, id).details?.some((d) => /finish reason: (length|max_tokens)/.test(d)));
      }
      assert.match(check(r, 'stream-native').details?.[0] ?? '', /chunks of reasoning and \d+ of text/);
    },
  );
}

test(
  'an empty reply that did not run out of budget still fails generation (not every empty reply is reasoning)',
  T,
  async () => {
    strict.config.replyText = '';
    try {
      const r = await diagnose(strict);
      assert.equal(check(r, 'generate-chat').result, 'fail');
      assert.match(check(r, 'generate-chat').cause, /neither text nor a tool call|returned nothing/);
    } finally {
      strict.config.replyText = undefined;
    }
  },
);

test('progress: every step says how far the run is, in the engine’s own count, ending at the total', T, async () => {
  const steps: Array<{ done: number; total: number }> = [];
  const r = await diagnose(strict, { onProgress: (_c, p) => steps.push(p) });
  assert.equal(steps.length, r.checks.length);
  assert.ok(r.checks.length < steps[0].total, 'some checks do not apply (no media): the count is still the engine’s');
  assert.deepEqual(steps.at(-1), { done: steps[0].total, total: steps[0].total });
  assert.ok(steps.every((s, i) => i === 0 || s.done > steps[i - 1].done));
});

test('pickModels: no model given, the engine picks from the list it reads once, and says which', T, async () => {
  const picked: object[] = [];
  const r = await diagnose(strict, { models: {}, pickModels: (p) => picked.push(p) });
  assert.deepEqual([...picked], [{ chat: 'gpt-4o-mini', native: 'claude-sonnet-4-5' }]);
  assert.equal(check(r, 'generate-chat').result, 'pass');
  assert.equal(check(r, 'generate-native').result, 'pass');
  const given = await diagnose(strict, { models: { chat: 'gpt-4o-mini' }, pickModels: (p) => picked.push(p) });
  assert.equal(picked.length, 1, 'a given model is not replaced');
  assert.equal(given.checks.find((c) => c.id === 'generate-native')?.result, 'skipped');
});
