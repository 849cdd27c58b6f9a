/**
 * relay-doctor hardened (issue 38 §3), against the simulator: a token variable holding two lines is
 * refused as malformed before any request (it used to be sent, refused by the HTTP layer and retried
 * as a network fault, its masked form showing the second line's end); model ids and the gateway's
 * words lose control characters in text output whether stdout is a terminal or not, while --json
 * keeps them, escaped; a usage log larger than the read cap is said to be too large, not absent.
 */
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { GatewayClient, maskToken, redactSecrets, tokenShapeProblem, tokenShapeWarning } from '../../src/gateway';
import { USAGE_LOG_BOUNDS } from '../../src/gateway/economy/usageLogParse';
import { main } from '../../src/cli/main';
import { defaultConfig, startSimulator, type Simulator } from '../sim/server';
import { defaultUsageLog } from '../sim/usageLog';
import { thrown } from '../gateway/helpers';

/** A model id and an error message carrying a colour escape, a carriage return, a C1 CSI and a bidi override. */
const EVIL_ID = 'gpt-4o-mini-\u001b[31mred\u001b[0m\r\u009b2J\u202eevil';
const EVIL_MESSAGE = 'upstream said \u001b]0;pwned\u0007\u001b[31mno\u001b[0m\rOVERWRITTEN\u202e';

let sim: Simulator;
before(async () => {
  const base = defaultConfig('real');
  const evil = { ...base.models.find((m) => m.id === 'gpt-4o-mini')!, id: EVIL_ID };
  sim = await startSimulator({
    profile: 'real',
    models: [...base.models, evil],
    groups: base.groups.map((g) => ({ ...g, visible: [...g.visible, EVIL_ID] })),
  });
});
after(() => sim.close());
beforeEach(() => {
  sim.reset();
  sim.config.usageLog = { ...defaultUsageLog(), delayMs: 0 };
});

async function run(args: string[], env: Record<string, string> = {}, tty = false) {
  let out = '';
  let err = '';
  const code = await main({
    argv: args,
    env: { MODEL_RELAY_BASE_URL: sim.url, MODEL_RELAY_TOKEN: sim.tokens.production, ...env },
    cwd: process.cwd(),
    stdout: { write: (s: string) => (out += s), isTTY: tty },
    stderr: { write: (s: string) => (err += s), isTTY: tty },
  });
  return { code, out, err };
}

/** Any C0 control but newline, C1 control, escape or bidi override. */
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

const SECOND = 'sk-SECONDline0123456789abcdefQRST';

test('a token variable holding two lines is refused as malformed before any request; nothing of the second line shows', async () => {
  const token = `${sim.tokens.production}\n${SECOND}`;
  for (const args of [['chat', '--model', 'gpt-4o-mini', 'hi'], ['models'], ['quota'], ['usage']]) {
    sim.reset();
    const r = await run(args, { MODEL_RELAY_TOKEN: token });
    assert.equal(r.code, 1, `${args[0]}: ${r.err}`);
    assert.match(r.err, /error \(unauthorized\): The token holds more than one line/, args[0]);
    assert.match(r.err, /fix: .*one token/, args[0]);
    assert.doesNotMatch(r.err, /retrying|network/, `${args[0]}: not a network fault, not retried`);
    assert.ok(!r.err.includes('QRST') && !r.out.includes('QRST'), `${args[0]}: nothing of the second line`);
    assert.ok(!r.err.includes(sim.tokens.production.slice(8, -4)), `${args[0]}: the first token masked`);
    assert.deepEqual(
      sim.log.map((l) => l.path),
      [],
      `${args[0]}: nothing was sent`,
    );
  }
});

test('the shared token rules: two lines are their own problem, masked as the first line, refused by every client', async () => {
  const first = sim.tokens.production;
  const two = `${first}\r\n${SECOND}`;
  assert.equal(tokenShapeProblem(two), 'lines');
  assert.match(tokenShapeWarning(two) ?? '', /more than one line/);
  assert.equal(maskToken(two), maskToken(first), 'the masked form shows the first line only');
  assert.equal(maskToken(`\n${first}`), maskToken(first));
  const redacted = redactSecrets(`header: Bearer ${first}\nnext: ${SECOND.slice(3)}`, [two]);
  assert.ok(!redacted.includes(first) && !redacted.includes(SECOND.slice(3)), redacted);
  // The extension's client (and relay-doctor's): refused before the request, never retried.
  let sleeps = 0;
  const client = new GatewayClient({
    baseUrl: sim.url,
    token: () => two,
    sleep: async () => void sleeps++,
  });
  const e = await thrown(() =>
    client.chat({ surface: 'compatible', model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
  );
  assert.equal(e.kind, 'unauthorized');
  assert.equal(e.detail, 'malformed_token');
  assert.equal(sleeps, 0, 'not retried');
  assert.equal(e.maskedToken, maskToken(first));
  assert.deepEqual(
    sim.log.map((l) => l.path),
    [],
  );
});

test('model ids lose control characters in text output, terminal or not; --json keeps them, escaped', async () => {
  for (const tty of [false, true]) {
    const r = await run(['models'], {}, tty);
    assert.equal(r.code, 0, r.err);
    assert.doesNotMatch(r.out, CONTROL, `tty: ${tty}`);
    assert.match(r.out, /^gpt-4o-mini-redevil /m, 'the id, without its controls');
  }
  const json = await run(['models', '--json']);
  assert.equal(json.code, 0, json.err);
  assert.doesNotMatch(json.out, CONTROL, 'nothing raw in the JSON text either');
  const ids = (JSON.parse(json.out) as { models: Array<{ id: string }> }).models.map((m) => m.id);
  assert.ok(ids.includes(EVIL_ID), 'the id itself, every character kept');
});

test("the gateway's words in an error and in a reply lose control characters too, terminal or not", async () => {
  for (const tty of [false, true]) {
    sim.reset();
    sim.fault({ kind: 'okJson', message: EVIL_MESSAGE, code: 'bad_thing', path: '/v1/chat/completions' });
    const r = await run(['chat', '--model', 'gpt-4o-mini', '--no-stream', 'hi'], {}, tty);
    assert.equal(r.code, 1, r.err);
    assert.match(r.err, /upstream said .*no.*OVERWRITTEN/);
    assert.doesNotMatch(r.err, CONTROL, `tty: ${tty}`);
    sim.clearFaults();
    sim.config.replyText = 'Hello \u001b[2J\rgone\u202e done';
    try {
      const reply = await run(['chat', '--model', 'gpt-4o-mini', 'hi'], {}, tty);
      assert.equal(reply.code, 0, reply.err);
      assert.equal(reply.out, 'Hello gone done\n');
    } finally {
      sim.config.replyText = undefined;
    }
  }
});

test('a usage log larger than the read cap is "too large to read (4 MB cap)", not "no usage log"', async () => {
  const cap = USAGE_LOG_BOUNDS.bytes / (1024 * 1024);
  const now = Math.floor(Date.now() / 1000);
  for (let i = 0; i < 1000; i++)
    sim.gatewayLog.push({
      visibleAt: 0,
      tokenValue: sim.tokens.production,
      created_at: now - i,
      type: 5,
      content: `upstream error ${i}: ${'x'.repeat(6 * 1024)}`,
      model_name: 'gpt-4o-mini',
      quota: 0,
      prompt_tokens: 0,
      completion_tokens: 0,
      use_time: 1,
      is_stream: false,
      token_name: 'production',
      group: 'default',
      request_id: `req-${i}`,
      other: '{}',
    });
  const r = await run(['usage']);
  assert.equal(r.code, 1, r.err);
  assert.match(r.err, new RegExp(`too large to read \\(${cap} MB cap\\)`));
  assert.doesNotMatch(r.err, /does not show a token its usage log|internal/);
  // The gateway is not taken for one without a log: once the log fits, the next read (a minute on) reads it.
  let clock = Date.now();
  const client = new GatewayClient({ baseUrl: sim.url, token: () => sim.tokens.production, now: () => clock });
  const big = await client.usage.read();
  assert.deepEqual(big.state === 'failed' && big.message, `the log is too large to read (${cap} MB cap)`);
  sim.gatewayLog.splice(10);
  clock += 61_000;
  const ok = await client.usage.read();
  assert.equal(ok.state, 'ok');
  assert.equal(ok.state === 'ok' && ok.records.length, 10);
});
