/**
 * Terminal tools' probes (issue 26 §1) against the simulator's new-api profile: each tool's request
 * as the gateway saw it (path, headers) and as it was sent (the body, through the HTTP recorder),
 * and each failure's cause and fix in that tool's terms; one request, never retried; the credential
 * never in a result.
 */
import { after, before, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { observeHttp, type ExchangeFacts } from '../../src/gateway/http/har';
import { GatewayClient } from '../../src/gateway/client';
import { CredentialScope } from '../../src/gateway/http/egress';
import { probeTool, type ProbeTarget } from '../../src/gateway/tools/probes';
import { probeTargetOf } from '../../src/gateway/tools/probeTarget';
import type { ToolSource, ToolStatus } from '../../src/gateway/tools/types';
import { startSimulator, type Simulator } from '../sim/server';

let sim: Simulator;
before(async () => {
  sim = await startSimulator({ profile: 'real', gateway: 'new-api' });
});
after(() => sim.close());
beforeEach(() => sim.reset());

const terminal = (key: string): ToolSource => ({ kind: 'terminal', where: 'terminal environment', key });
const file = (where: string, key: string): ToolSource => ({ kind: 'file', where, key });
const SETTINGS = '/home/u/.claude/settings.json';

function claude(o: { base?: string; token?: string; header?: 'authorization' | 'x-api-key'; model?: string } = {}) {
  return {
    tool: 'claude-code',
    baseUrl: { value: o.base ?? sim.url, from: file(SETTINGS, 'env.ANTHROPIC_BASE_URL') },
    credential: {
      value: o.token ?? sim.tokens.production,
      header: o.header ?? 'authorization',
      from: file(SETTINGS, 'env.ANTHROPIC_AUTH_TOKEN'),
    },
    model: { value: o.model ?? 'claude-sonnet-4-5', from: file(SETTINGS, 'env.ANTHROPIC_MODEL') },
  } satisfies ProbeTarget;
}
const CODEX_TOML = '/home/u/.codex/config.toml';
function codex(o: { base?: string; model?: string; wire?: string } = {}): ProbeTarget {
  return {
    tool: 'codex',
    baseUrl: { value: o.base ?? `${sim.url}/v1`, from: file(CODEX_TOML, 'model_providers.relay.base_url') },
    credential: { value: sim.tokens.production, header: 'authorization', from: terminal('MODEL_RELAY_API_KEY') },
    model: { value: o.model ?? 'gpt-5.5-codex', from: file(CODEX_TOML, 'model') },
    ...(o.wire ? { wireApi: { value: o.wire, from: file(CODEX_TOML, 'model_providers.relay.wire_api') } } : {}),
  };
}
function gemini(o: { base?: string; model?: string } = {}): ProbeTarget {
  return {
    tool: 'gemini-cli',
    baseUrl: { value: o.base ?? sim.url, from: terminal('GOOGLE_GEMINI_BASE_URL') },
    credential: { value: sim.tokens.production, header: 'x-goog-api-key', from: terminal('GEMINI_API_KEY') },
    ...(o.model ? { model: { value: o.model, from: terminal('GEMINI_MODEL') } } : {}),
  };
}
const OPENCODE = '/home/u/.config/opencode/opencode.json';
function opencode(o: { base?: string } = {}): ProbeTarget {
  return {
    tool: 'opencode',
    baseUrl: { value: o.base ?? `${sim.url}/v1`, from: file(OPENCODE, 'provider.relay.options.baseURL') },
    credential: { value: sim.tokens.production, header: 'authorization', from: terminal('MODEL_RELAY_API_KEY') },
    model: { value: 'gpt-4o-mini', from: file(OPENCODE, 'model') },
  };
}

function copilot(): ProbeTarget {
  return {
    tool: 'copilot-cli',
    baseUrl: { value: `${sim.url}/v1`, from: terminal('COPILOT_PROVIDER_BASE_URL') },
    credential: { value: sim.tokens.production, header: 'authorization', from: terminal('COPILOT_PROVIDER_API_KEY') },
    model: { value: 'gpt-4o-mini', from: terminal('COPILOT_MODEL') },
  };
}

/** Records what the probes send (the HTTP recorder's view: the same hook HAR capture uses). */
function recordSent(): { sent: ExchangeFacts[]; stop: () => void } {
  const sent: ExchangeFacts[] = [];
  const stop = observeHttp({
    begin: (f) => {
      sent.push(f);
      return undefined;
    },
  });
  return { sent, stop };
}

/** The simulator is the gateway: its origin is the only one the token may go to. */
const here = (url = sim.url) => ({ scope: new CredentialScope('sim', [url]) });

const assertNoToken = (r: unknown) => assert.ok(!JSON.stringify(r).includes(sim.tokens.production.slice(3)));

test("each tool's probe sends that tool's request: path, headers and body shape, streamed, with a tiny limit", async () => {
  const rec = recordSent();
  try {
    const c = await probeTool(claude(), here());
    assert.equal(c.ok, true, c.cause);
    assert.equal(c.request, 'POST /v1/messages?beta=true');
    const ch = sim.log.at(-1)!.headers;
    assert.equal(sim.log.at(-1)!.path, '/v1/messages');
    assert.equal(ch.authorization, 'Bearer sk-Pr0...Lk5d');
    assert.equal(ch['anthropic-version'], '2023-06-01');
    assert.equal(ch['anthropic-beta'], 'claude-code-20250219,interleaved-thinking-2025-05-14');
    assert.equal(ch['x-app'], 'cli');
    assert.match(ch['user-agent'], /^claude-cli\//);
    const cb = JSON.parse(String(rec.sent.at(-1)!.body));
    assert.deepEqual([cb.model, cb.stream, cb.max_tokens <= 16], ['claude-sonnet-4-5', true, true]);

    const x = await probeTool(claude({ header: 'x-api-key' }), here());
    assert.equal(x.ok, true, x.cause);
    assert.equal(sim.log.at(-1)!.headers['x-api-key'], 'sk-Pr0...Lk5d');

    const k = await probeTool(codex(), here());
    assert.equal(k.ok, true, k.cause);
    assert.equal(k.request, 'POST /v1/responses');
    assert.equal(sim.log.at(-1)!.headers.authorization, 'Bearer sk-Pr0...Lk5d');
    const kb = JSON.parse(String(rec.sent.at(-1)!.body));
    assert.deepEqual(kb.tools, []);
    assert.deepEqual([kb.store, kb.stream, kb.include], [false, true, ['reasoning.encrypted_content']]);
    assert.equal(typeof kb.instructions, 'string');
    assert.equal(kb.input[0].content[0].type, 'input_text');
    assert.ok(kb.reasoning);

    const g = await probeTool(gemini(), {
      ...here(),
      models: [{ id: 'gemini-2.5-flash', surfaces: ['gemini', 'compatible'] }],
    });
    assert.equal(g.ok, true, g.cause);
    assert.equal(g.request, 'POST /v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
    assert.match(g.note ?? '', /GEMINI_MODEL.*gemini-2\.5-flash/);
    assert.equal(sim.log.at(-1)!.headers['x-goog-api-key'], 'sk-Pr0...Lk5d');
    assert.equal(JSON.parse(String(rec.sent.at(-1)!.body)).generationConfig.maxOutputTokens, 16);

    const o = await probeTool(opencode(), here());
    assert.equal(o.ok, true, o.cause);
    assert.equal(o.request, 'POST /v1/chat/completions');
    assert.equal(JSON.parse(String(rec.sent.at(-1)!.body)).stream, true);
    for (const r of [c, x, k, g, o]) assertNoToken(r);
  } finally {
    rec.stop();
  }
});

/** Copilot CLI's status as its resolver leaves it for variables in the terminal (probeTargetOf reads the rest there). */
function copilotStatus(base: string, model: string): ToolStatus {
  return {
    tool: 'copilot-cli',
    label: 'GitHub Copilot CLI',
    state: 'set-up',
    resolved: {
      baseUrl: { value: base, from: terminal('COPILOT_PROVIDER_BASE_URL') },
      auth: { header: 'authorization', masked: 'sk-Pr0...Lk5d', from: terminal('COPILOT_PROVIDER_API_KEY') },
      model: { value: model, from: terminal('COPILOT_MODEL') },
      overrides: [],
      conflicts: [],
      problems: [],
    },
  };
}

test("GitHub Copilot CLI's probe is its own request: Chat Completions with its custom apply_patch tool, Responses, Anthropic Messages", async () => {
  const rec = recordSent();
  const env = (extra: Record<string, string> = {}) => ({ COPILOT_PROVIDER_API_KEY: sim.tokens.production, ...extra });
  try {
    // the default wire API: POST {base}/chat/completions, as the OpenAI SDK sends it
    const chat = await probeTool(await probeTargetOf(copilotStatus(`${sim.url}/v1`, 'gpt-4o-mini'), env()), here());
    // Copilot CLI sends every gpt-4o model a reasoning_effort, which OpenAI refuses (provider-constraints.md §1a):
    // the probe is its own request, so it says so rather than passing where the tool would fail.
    assert.equal(chat.ok, false);
    assert.match(chat.cause ?? '', /Unrecognized request argument supplied: reasoning_effort/);
    assert.equal(chat.request, 'POST /v1/chat/completions');
    const h = sim.log.at(-1)!.headers;
    assert.equal(h.authorization, 'Bearer sk-Pr0...Lk5d');
    assert.match(h['user-agent'], /^OpenAI\/JS /);
    assert.deepEqual([h['x-initiator'], h['x-interaction-type']], ['user', 'conversation-user']);
    const b = JSON.parse(String(rec.sent.at(-1)!.body));
    assert.deepEqual(
      [b.stream, b.stream_options, b.reasoning_effort, b.max_tokens],
      [true, { include_usage: true }, 'medium', 16],
    );
    assert.deepEqual(
      b.tools.map((t: { type: string }) => t.type),
      ['function', 'custom'],
    );
    assert.deepEqual(b.tools[1].custom.format.type, 'grammar');
    assert.equal(b.messages[0].role, 'system');
    // A Claude model: no effort (new-api would make it a thinking budget above the probe's 16 tokens: refused)
    const claudeChat = await probeTool(
      await probeTargetOf(copilotStatus(`${sim.url}/v1`, 'claude-sonnet-4-5'), env()),
      here(),
    );
    assert.equal(claudeChat.ok, true, claudeChat.cause);
    const cb = JSON.parse(String(rec.sent.at(-1)!.body));
    assert.deepEqual([cb.reasoning_effort, cb.temperature, cb.max_tokens], [undefined, 1, 16]);

    // COPILOT_PROVIDER_WIRE_API=responses: POST {base}/responses, never stored, encrypted reasoning asked for
    const resp = await probeTool(
      await probeTargetOf(
        copilotStatus(`${sim.url}/v1`, 'gpt-5.5-codex'),
        env({ COPILOT_PROVIDER_WIRE_API: 'responses' }),
      ),
      here(),
    );
    assert.equal(resp.ok, true, resp.cause);
    assert.equal(resp.request, 'POST /v1/responses');
    const rb = JSON.parse(String(rec.sent.at(-1)!.body));
    assert.deepEqual(
      [rb.store, rb.stream, rb.include, rb.max_output_tokens],
      [false, true, ['reasoning.encrypted_content'], 16],
    );
    assert.deepEqual(rb.tools[1], {
      type: 'custom',
      name: 'apply_patch',
      description: rb.tools[1].description,
      format: { type: 'grammar', syntax: 'lark', definition: 'start: begin_patch hunk+ end_patch' },
    });

    // COPILOT_PROVIDER_TYPE=anthropic: the root address, POST /v1/messages with x-api-key
    const status = copilotStatus(sim.url, 'claude-sonnet-4-5');
    status.resolved!.auth!.header = 'x-api-key';
    const msg = await probeTool(await probeTargetOf(status, env({ COPILOT_PROVIDER_TYPE: 'anthropic' })), here());
    assert.equal(msg.ok, true, msg.cause);
    assert.equal(msg.request, 'POST /v1/messages');
    assert.equal(sim.log.at(-1)!.headers['x-api-key'], 'sk-Pr0...Lk5d');
    assert.equal(sim.log.at(-1)!.headers['anthropic-version'], '2023-06-01');
    assert.equal(JSON.parse(String(rec.sent.at(-1)!.body)).max_tokens, 16);
    for (const r of [chat, resp, msg]) assertNoToken(r);
  } finally {
    rec.stop();
  }
});

/** Each failure and the words it must carry (cause, fix), in the tool's terms. */
const FAILURES: Array<{ name: string; target: () => ProbeTarget; status?: number; cause: RegExp[]; fix: RegExp[] }> = [
  {
    name: 'Claude Code: ANTHROPIC_BASE_URL with /v1',
    target: () => claude({ base: `${sim.url}/v1` }),
    status: 404,
    cause: [
      /^ANTHROPIC_BASE_URL ends in \/v1: Claude Code adds \/v1\/messages itself/,
      /\/v1\/v1\/messages\?beta=true/,
    ],
    fix: [/Remove \/v1 from ANTHROPIC_BASE_URL in \/home\/u\/\.claude\/settings\.json/],
  },
  {
    name: 'Claude Code: a stale token',
    target: () => claude({ token: 'sk-stale0000000000000000000000000000000' }),
    status: 401,
    cause: [
      /refused the credential Claude Code sends \(sk-sta\.\.\.0000, ANTHROPIC_AUTH_TOKEN in \/home\/u\/\.claude\/settings\.json/,
    ],
    fix: [/Set ANTHROPIC_AUTH_TOKEN in \/home\/u\/\.claude\/settings\.json to this gateway's token/],
  },
  {
    name: "Claude Code: a model outside the token's group",
    target: () => claude({ model: 'gpt-4o' }),
    status: 503,
    cause: [/The model gpt-4o \(ANTHROPIC_MODEL, from .*settings\.json\).*503 model_not_found/, /group default/],
    fix: [/Set ANTHROPIC_MODEL \(and ANTHROPIC_DEFAULT_OPUS\/SONNET\/HAIKU_MODEL\)/],
  },
  {
    name: 'Codex: base_url without /v1',
    target: () => codex({ base: sim.url }),
    cause: [
      /^model_providers\.relay\.base_url is http:\/\/127\.0\.0\.1:\d+, without \/v1: Codex CLI appends \/responses/,
    ],
    fix: [/Set model_providers\.relay\.base_url to http:\/\/127\.0\.0\.1:\d+\/v1 in \/home\/u\/\.codex\/config\.toml/],
  },
  {
    name: 'Codex: wire_api = "chat"',
    target: () => codex({ wire: 'chat' }),
    cause: [/Codex refuses wire_api = "chat"/],
    fix: [/Set wire_api = "responses" in \/home\/u\/\.codex\/config\.toml/],
  },
  {
    name: 'Codex: a model the gateway cannot serve on the Responses API',
    target: () => codex({ model: 'claude-sonnet-4-5' }),
    status: 500,
    cause: [/cannot serve claude-sonnet-4-5 in Codex CLI's API.*convert_request_failed/],
    fix: [/Set model in \/home\/u\/\.codex\/config\.toml/],
  },
  {
    name: 'Gemini CLI: GOOGLE_GEMINI_BASE_URL with /v1beta',
    target: () => gemini({ base: `${sim.url}/v1beta`, model: 'gemini-2.5-flash' }),
    cause: [/^GOOGLE_GEMINI_BASE_URL ends in \/v1beta: Gemini CLI adds/, /\/v1beta\/v1beta\/models/],
    fix: [/Remove \/v1beta from GOOGLE_GEMINI_BASE_URL in the terminal environment/],
  },
  {
    name: 'GitHub Copilot CLI: a wire API it refuses',
    target: () => ({
      ...copilot(),
      wireApi: { value: 'chat', from: terminal('COPILOT_PROVIDER_WIRE_API') },
    }),
    cause: [/Copilot CLI refuses COPILOT_PROVIDER_WIRE_API = "chat" \(the terminal environment\)/],
    fix: [/Set COPILOT_PROVIDER_WIRE_API to completions or responses in the terminal environment/],
  },
  {
    name: 'GitHub Copilot CLI: the type anthropic with a /v1 address',
    target: () => ({
      ...copilot(),
      model: { value: 'claude-sonnet-4-5', from: terminal('COPILOT_MODEL') },
      providerType: { value: 'anthropic', from: terminal('COPILOT_PROVIDER_TYPE') },
    }),
    status: 404,
    cause: [
      /^COPILOT_PROVIDER_BASE_URL ends in \/v1: GitHub Copilot CLI adds \/v1\/messages itself/,
      /\/v1\/v1\/messages/,
    ],
    fix: [/Remove \/v1 from COPILOT_PROVIDER_BASE_URL in the terminal environment/],
  },
  {
    name: "GitHub Copilot CLI: a model outside the token's group",
    target: () => ({ ...copilot(), model: { value: 'gpt-4o', from: terminal('COPILOT_MODEL') } }),
    status: 503,
    cause: [/The model gpt-4o \(COPILOT_MODEL, from the terminal environment\)/],
    fix: [/Set COPILOT_MODEL in the terminal environment to a model of this token's group/],
  },
  {
    name: 'opencode: baseURL without /v1',
    target: () => opencode({ base: sim.url }),
    cause: [/^provider\.relay\.options\.baseURL is .*, without \/v1: opencode appends \/chat\/completions/],
    fix: [/Set provider\.relay\.options\.baseURL to .*\/v1 in \/home\/u\/\.config\/opencode\/opencode\.json/],
  },
];

for (const f of FAILURES) {
  test(`probe failure in the tool's terms — ${f.name}`, async () => {
    const r = await probeTool(f.target(), here());
    assert.equal(r.ok, false);
    if (f.status) assert.equal(r.status, f.status);
    for (const re of f.cause) assert.match(r.cause ?? '', re);
    for (const re of f.fix) assert.match(r.fix ?? '', re);
    assert.ok(sim.log.length <= 1, 'one request at most');
    assertNoToken(r);
  });
}

test('one-api: Gemini CLI finds no Gemini API there', async () => {
  const one = await startSimulator({ profile: 'real', gateway: 'one-api' });
  try {
    const r = await probeTool(
      {
        ...gemini({ model: 'gemini-2.5-flash' }),
        baseUrl: { value: one.url, from: terminal('GOOGLE_GEMINI_BASE_URL') },
      },
      here(one.url),
    );
    assert.equal(r.ok, false);
    assert.match(r.cause ?? '', /^This gateway does not serve the Gemini API .* with a web page/);
  } finally {
    await one.close();
  }
});

test('a probe is never retried: a 500 is one request; a missing variable sends nothing; a cancelled probe says so', async () => {
  sim.fault({ kind: 'status', status: 500, count: 3 });
  const r = await probeTool(claude(), here());
  assert.equal(r.ok, false);
  assert.equal(r.status, 500);
  assert.equal(sim.log.length, 1);
  sim.reset();
  const noKey = await probeTool({ ...codex(), credential: undefined }, here());
  assert.match(
    noKey.cause ?? '',
    /The variable env_key that env_key names|MODEL_RELAY_API_KEY|not set in this terminal/,
  );
  assert.equal(sim.log.length, 0);
  const ac = new AbortController();
  sim.fault({ kind: 'latency', ms: 2000 });
  const pending = probeTool(claude(), { ...here(), signal: ac.signal });
  setTimeout(() => ac.abort(), 50);
  const cancelled = await pending;
  assert.equal(cancelled.ok, false);
  assert.match(cancelled.cause ?? '', /cancelled/);
});

test("the target reads the credential where the tool reads it: a settings file's env block, opencode's {env:VAR}", async () => {
  const dir = await mkdtemp(join(tmpdir(), 'probe-target-'));
  const settings = join(dir, 'settings.json');
  await writeFile(settings, `{ // comment\n "env": { "ANTHROPIC_AUTH_TOKEN": "${sim.tokens.production}" } }`);
  const t1 = await probeTargetOf(
    {
      tool: 'claude-code',
      label: 'Claude Code',
      state: 'set-up',
      resolved: {
        baseUrl: { value: sim.url, from: file(settings, 'env.ANTHROPIC_BASE_URL') },
        auth: { header: 'authorization', masked: 'sk-Pr0...Lk5d', from: file(settings, 'env.ANTHROPIC_AUTH_TOKEN') },
        overrides: [],
        conflicts: [],
        problems: [],
      },
    },
    {},
  );
  assert.equal(t1.credential?.value, sim.tokens.production);
  const oc = join(dir, 'opencode.json');
  await writeFile(oc, '{"provider":{"relay":{"options":{"apiKey":"{env:RELAY_KEY}"}}}}');
  const toml = join(dir, 'config.toml');
  await writeFile(toml, '[model_providers.relay]\nbase_url = "http://x/v1"\nwire_api = "chat"\n');
  const t2 = await probeTargetOf(
    {
      tool: 'codex',
      label: 'Codex CLI',
      state: 'set-up',
      resolved: {
        baseUrl: { value: 'http://x/v1', from: file(toml, 'model_providers.relay.base_url') },
        auth: { header: 'authorization', masked: 'x', from: file(oc, 'provider.relay.options.apiKey') },
        overrides: [],
        conflicts: [],
        problems: [],
      },
    },
    { RELAY_KEY: 'sk-fromenv' },
  );
  assert.equal(t2.credential?.value, 'sk-fromenv');
  assert.equal(t2.wireApi?.value, 'chat');
});

test("a stream kept alive with comments and never finished cannot hold a probe open: it ends by the probe's deadline", async () => {
  sim.fault({ kind: 'keepAlive', everyMs: 25, afterEvents: 0 });
  const started = Date.now();
  // the silence limit never fires (a comment every 25 ms); the whole exchange is bounded by 3 × timeoutMs
  const p = await probeTool(claude(), { ...here(), timeoutMs: 300 });
  const took = Date.now() - started;
  assert.ok(took >= 850 && took < 3000, `${took} ms`);
  assert.equal(p.ok, false);
  assert.match(p.cause ?? '', /within 0\.9 s|within 900 ms|within 1 s/);
  assert.ok(!JSON.stringify(p).includes(sim.tokens.production));
  // a caller's own, shorter limit wins (a client's whole-reply limit)
  const t2 = Date.now();
  await probeTool(claude(), { ...here(), timeoutMs: 300, deadlineMs: 400 });
  assert.ok(Date.now() - t2 < 850, 'the shorter deadline');
  // through a gateway client: its own chat limits where they are shorter (Set Up Tools' probe)
  const client = new GatewayClient({
    baseUrl: sim.url,
    token: () => sim.tokens.production,
    timeouts: { chatMs: 300, chatOverallMs: 500 },
  });
  const t3 = Date.now();
  assert.equal((await client.probeTool(claude())).ok, false);
  assert.ok(Date.now() - t3 < 1000, `${Date.now() - t3} ms`);
});
