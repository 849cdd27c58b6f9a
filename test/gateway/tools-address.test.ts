/**
 * A tool's state is decided by the address it will call (issue 37 §1): one of this gateway's roots
 * (base URL or backup) → set up, whatever token it carries — a dedicated token for the tool, as the
 * gateway's spec recommends, is probed and passes; another configured gateway's address → not set up
 * here, that gateway named, nothing sent; this gateway's address with another gateway's token → the
 * probe is not sent (that token never reaches this gateway). A model list that could not be read is
 * said as that failure, never as "serves no model". Real HTTP against the simulator, which records
 * every credential it sees.
 */
import { after, before, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { Agent } from 'undici';
import { GatewayClient } from '../../src/gateway/client';
import { maskToken } from '../../src/gateway/mask';
import { planSetUp, toolStatus } from '../../src/gateway/tools';
import { probeTargetOf } from '../../src/gateway/tools/probeTarget';
import type { ToolGateway } from '../../src/gateway/tools/types';
import { credentialDigest, startSimulator, type Simulator } from '../sim/server';
import { sandbox } from './toolsFixture';

let sim: Simulator;
let other: Simulator;
before(async () => {
  sim = await startSimulator({ profile: 'real', gateway: 'new-api' });
  other = await startSimulator({ profile: 'real', gateway: 'new-api' });
});
after(async () => {
  await sim.close();
  await other.close();
});
beforeEach(() => {
  sim.reset();
  other.reset();
});

const T = { timeout: 30_000 };
const OTHER_TOKEN = 'sk-0therGatewayT0kenAbCdEfGhIjKlMnOpQrStUvWxYz012345';

function gw(over: Partial<ToolGateway> = {}): ToolGateway {
  return {
    id: 'main',
    name: 'Main',
    baseUrl: sim.url,
    maskedToken: maskToken(sim.tokens.production),
    providerId: 'model-relay-main',
    tokenVariable: 'MODEL_RELAY_MAIN_KEY',
    models: [{ id: 'claude-sonnet-4-5', surfaces: ['native', 'compatible'] }],
    others: [{ id: 'spare', name: 'Spare', baseUrl: other.url, maskedTokens: [maskToken(OTHER_TOKEN)] }],
    ...over,
  };
}

const agent = new Agent();
after(() => agent.close());

function client(): GatewayClient {
  return new GatewayClient({ baseUrl: sim.url, token: () => sim.tokens.production, dispatcher: agent });
}

const saw = (s: Simulator, token: string) => s.credentials.includes(credentialDigest(token));

test("a dedicated token for the tool at this gateway's address: set up, probed, and it passes", T, async () => {
  const s = sandbox({ ANTHROPIC_BASE_URL: sim.url, ANTHROPIC_AUTH_TOKEN: sim.tokens['native-cli'] });
  const c = client();
  try {
    const st = await toolStatus('claude-code', s.env, gw());
    assert.equal(st.state, 'set-up', st.why);
    assert.deepEqual(st.aim, { at: 'this' });
    assert.equal(
      st.resolved?.auth?.matches,
      undefined,
      "it is not the token Model Relay uses — and that doesn't matter",
    );
    const p = await c.probeTool(await probeTargetOf(st, s.env.env), { models: gw().models });
    assert.equal(p.ok, true, p.cause);
    assert.ok(saw(sim, sim.tokens['native-cli']), "the tool's own token went to its own gateway");
  } finally {
    s.done();
  }
});

test('a backup domain of this gateway counts as this gateway', T, async () => {
  const s = sandbox({ ANTHROPIC_BASE_URL: 'https://backup.example.net', ANTHROPIC_AUTH_TOKEN: sim.tokens.production });
  try {
    const st = await toolStatus('claude-code', s.env, gw({ backupUrls: ['https://backup.example.net/'] }));
    assert.equal(st.state, 'set-up', st.why);
  } finally {
    s.done();
  }
});

test("another configured gateway's address: not set up here, that gateway named, nothing sent", T, async () => {
  const s = sandbox({ ANTHROPIC_BASE_URL: other.url, ANTHROPIC_AUTH_TOKEN: OTHER_TOKEN });
  try {
    const st = await toolStatus('claude-code', s.env, gw());
    assert.equal(st.state, 'not-set-up');
    assert.deepEqual(st.aim, { at: 'other', gateway: 'Spare', gatewayId: 'spare' });
    assert.match(st.why ?? '', /set up for the gateway "Spare"/);
    assert.equal(sim.credentials.length + other.credentials.length, 0);
  } finally {
    s.done();
  }
});

test(
  "this gateway's address with another gateway's token: the probe is not sent, and says whose token it is",
  T,
  async () => {
    const s = sandbox({ ANTHROPIC_BASE_URL: sim.url, ANTHROPIC_AUTH_TOKEN: OTHER_TOKEN });
    const c = client();
    try {
      const st = await toolStatus('claude-code', s.env, gw());
      assert.equal(st.resolved?.auth?.foreign, 'Spare');
      const p = await c.probeTool(await probeTargetOf(st, s.env.env), { models: gw().models });
      assert.equal(p.ok, false);
      assert.match(p.cause ?? '', /carries the token of the gateway "Spare"/);
      assert.ok(!saw(sim, OTHER_TOKEN), "the other gateway's token never reached this one");
      assert.equal(sim.credentials.length, 0, 'nothing was sent at all');
    } finally {
      s.done();
    }
  },
);

test(
  "this gateway's token aimed at another gateway: overridden, and the probe refuses to send it there",
  T,
  async () => {
    const s = sandbox({ ANTHROPIC_BASE_URL: other.url, ANTHROPIC_AUTH_TOKEN: sim.tokens.production });
    const c = client();
    try {
      const st = await toolStatus('claude-code', s.env, gw());
      assert.equal(st.state, 'overridden');
      assert.match(st.why ?? '', /would send this gateway's token to/);
      const p = await c.probeTool(await probeTargetOf(st, s.env.env), { models: gw().models });
      assert.equal(p.sent, false);
      assert.equal(other.credentials.length, 0);
    } finally {
      s.done();
    }
  },
);

test('models that could not be listed are said as that failure, not as "serves no model"', T, async () => {
  const s = sandbox({ ANTHROPIC_BASE_URL: sim.url, ANTHROPIC_AUTH_TOKEN: sim.tokens.production });
  try {
    const g = gw({ models: [], modelsError: 'The connection to 127.0.0.1 was refused.' });
    const st = await toolStatus('claude-code', s.env, g);
    assert.equal(st.state, 'set-up', 'judged by its address all the same');
    const plan = await planSetUp('codex', s.env, g, {});
    assert.match(plan.unavailable ?? '', /could not be listed.*refused/);
    assert.doesNotMatch(plan.unavailable ?? '', /serves no model/);
  } finally {
    s.done();
  }
});
