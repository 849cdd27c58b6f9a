/**
 * The diagnosis panel's page, in Node over real HTTP: two simulators as two gateways, each diagnosed
 * with its own active token read from its own token store (gatewayTokens); the page has one summary
 * row per gateway (reachability, token, balance, models, generation), each gateway's full report one
 * click away (its "Full report" link opens its disclosure), the fallback findings, no fix button
 * (they would change the active gateway), and only masked tokens. The same page with one gateway
 * (Diagnose Connection) shows its checks directly, with the fixes. The progress moves once per
 * gateway and ends at 100 %; a cancelled run bills nothing.
 */
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { countTokens } from 'gpt-tokenizer/cjs/encoding/o200k_base';
import { diagnoseGateways, maskToken, type GatewayProfile, type RequestRecord } from '../../src/gateway';
import { tokenKeys } from '../../src/host/gateways/activeToken';
import { TokenStore } from '../../src/host/gateways/tokenStore';
import { diagnoseBody, DIAGNOSE_SCRIPT } from '../../src/host/diagnose/diagnoseHtml';
import { gatewayProgress, gatewayTokens } from '../../src/host/diagnose/diagnoseRuns';
import { credentialDigest, defaultConfig, startSimulator, type Simulator } from '../sim/server';
import { InMemoryMemento, InMemorySecretStorage } from '../fakes/state';

/** A simulator whose tokens are its own (the default ones with a per-gateway mark), with its economy. */
function simFor(mark: string) {
  const tokens = defaultConfig().tokens.map((t) => ({ ...t, value: `sk-${mark}${t.value.slice(3 + mark.length)}` }));
  return startSimulator({ tokens, profile: 'real' });
}

let a: Simulator;
let b: Simulator;
before(async () => {
  [a, b] = await Promise.all([simFor('AAA'), simFor('BBB')]);
});
after(() => Promise.all([a.close(), b.close()]));
beforeEach(() => {
  a.reset();
  b.reset();
});

const timeouts = { requestMs: 3_000, totalMs: 15_000 };

async function gatewaysWithTokens() {
  const state = new InMemoryMemento();
  const secrets = new InMemorySecretStorage();
  const stores = new Map<string, TokenStore>();
  for (const id of ['a', 'b']) stores.set(id, new TokenStore(state, secrets, undefined, tokenKeys(id)));
  await stores.get('a')!.add('production', a.tokens.production);
  await stores.get('a')!.add('test', a.tokens.test, false);
  await stores.get('b')!.add('production', b.tokens.production);
  const gateways: GatewayProfile[] = [
    { id: 'a', name: 'Gateway A', baseUrl: a.url, models: { chat: 'gpt-4o-mini' } },
    { id: 'b', name: 'Gateway B <b>', baseUrl: b.url, models: { chat: 'gpt-4o-mini' } },
  ];
  return { gateways, tokens: await gatewayTokens(gateways, (id) => stores.get(id)!) };
}

test('one summary row per gateway, each full report one click away, the fallback findings; masked tokens only', async () => {
  const { gateways, tokens } = await gatewaysWithTokens();
  assert.equal(tokens.token('a'), a.tokens.production, "a gateway's own active token");
  assert.equal(tokens.tokenName('b'), 'production');
  const progress: Array<{ message: string; increment?: number }> = [];
  const d = await diagnoseGateways({
    gateways,
    fallbacks: { 'gpt-4o-mini': [{ gateway: 'b', model: 'no-such-model' }] },
    token: tokens.token,
    tokenName: tokens.tokenName,
    timeouts,
    ...gatewayProgress((p) => progress.push(p)),
  });
  const html = diagnoseBody(d, { secrets: tokens.secrets });

  const rows = [...html.matchAll(/<tr [^>]*data-testid="gateway-row" data-gateway="([^"]+)" data-ok="(\w+)"/g)];
  assert.deepEqual(
    rows.map((m) => m[1]),
    ['a', 'b'],
    'one row per gateway, in their order',
  );
  for (const aspect of ['reachability', 'token', 'balance', 'models', 'generation'])
    assert.equal(html.split(`data-testid="cell-${aspect}"`).length - 1, 2, `a ${aspect} cell per gateway`);
  assert.match(
    html,
    new RegExp(`data-testid="cell-token" data-status="ok">.*${escapeRe(maskToken(a.tokens.production))}`),
  );
  assert.match(html, /data-testid="cell-balance" data-status="ok">.*\$/, 'the balance is read (a GET, never billed)');
  assert.ok(html.includes('Gateway B &lt;b&gt;') && !html.includes('Gateway B <b>'), 'names are escaped');

  // The detail: one disclosure per gateway with its full checks table; each row's link opens it.
  for (const id of ['a', 'b']) {
    assert.match(
      html,
      new RegExp(`<a href="#gateway-${id}" data-open="gateway-${id}" data-testid="open-report">Full report</a>`),
    );
    assert.match(html, new RegExp(`<details id="gateway-${id}" data-testid="gateway-report" data-gateway="${id}">`));
  }
  assert.equal(html.split('data-testid="check-token"').length - 1, 2, "each gateway's token check is in its report");
  assert.ok(!html.includes('data-fix='), 'no fix button: a fix would change the active gateway, not this one');
  assert.ok(DIAGNOSE_SCRIPT.includes('d.open=true'), 'the link opens the disclosure');

  // The fallback to a model B does not list is a finding, and B's models cell fails with it.
  assert.match(html, /data-testid="fallback-finding" data-status="fail">.*no-such-model/);
  assert.deepEqual(
    rows.map((m) => m[2]),
    ['true', 'false'],
  );
  assert.match(html, /data-testid="diagnosis-summary"><b>Summary: 1 of 2 gateways without a failed check/);

  // Tokens: masked on the page; each simulator saw only its own gateway's token.
  for (const tok of [...Object.values(a.tokens), ...Object.values(b.tokens)]) assert.ok(!html.includes(tok));
  assert.ok(a.credentials.includes(credentialDigest(a.tokens.production)));
  assert.ok(b.credentials.includes(credentialDigest(b.tokens.production)));
  for (const tok of Object.values(a.tokens)) assert.ok(!b.credentials.includes(credentialDigest(tok)));
  for (const tok of Object.values(b.tokens)) assert.ok(!a.credentials.includes(credentialDigest(tok)));

  // Progress: a start and an end per gateway; the bar ends at 100 %.
  assert.equal(progress.filter((p) => p.increment === undefined).length, 2);
  assert.equal(
    progress.reduce((s, p) => s + (p.increment ?? 0), 0),
    100,
  );
  assert.match(progress.at(-1)!.message, /\(2 of 2 gateways done\)$/);
});

test('a gateway without a token: its row says so with the fix; the other is diagnosed with its own', async () => {
  const state = new InMemoryMemento();
  const secrets = new InMemorySecretStorage();
  const storeA = new TokenStore(state, secrets, undefined, tokenKeys('a'));
  const storeB = new TokenStore(state, secrets, undefined, tokenKeys('b'));
  await storeA.add('production', a.tokens.production);
  const gateways: GatewayProfile[] = [
    { id: 'a', name: 'Gateway A', baseUrl: a.url, models: { chat: 'gpt-4o-mini' } },
    { id: 'b', name: 'Gateway B', baseUrl: b.url, models: { chat: 'gpt-4o-mini' } },
  ];
  const tokens = await gatewayTokens(gateways, (id) => (id === 'a' ? storeA : storeB));
  assert.deepEqual(tokens.secrets, [a.tokens.production]);
  const d = await diagnoseGateways({ gateways, token: tokens.token, tokenName: tokens.tokenName, timeouts });
  const html = diagnoseBody(d, { secrets: tokens.secrets });
  assert.match(html, /data-gateway="b" data-ok="false"/);
  assert.match(html, /data-testid="cell-token" data-status="fail">.*no token<div class="cause">/);
  assert.equal(
    b.log.filter((l) => /^\/v1\/(chat\/completions|messages)$/.test(l.path)).length,
    0,
    'nothing is generated on a gateway without a token',
  );
});

test("one gateway (Diagnose Connection): its checks directly; fixes, the billed run and the support report only on the active gateway's own", async () => {
  const gateway = { id: 'a', name: 'Gateway A', baseUrl: `${a.url}/v1`, models: { chat: 'gpt-4o-mini' } };
  const records: RequestRecord[] = [];
  const d = await diagnoseGateways({
    gateways: [gateway],
    token: () => a.tokens.production,
    tokenName: () => 'production',
    timeouts,
    // the editor's request log hears the checks' requests: a generation check is a billed call with a receipt
    onRequest: (r) => records.push(r),
    countText: (text) => Promise.resolve(countTokens(text)),
  });
  const generated = records.filter((r) => r.method === 'POST' && r.status === 200);
  assert.ok(generated.length >= 1, 'the generation checks are in the request log');
  for (const r of generated) {
    assert.equal(r.gateway, 'Gateway A');
    assert.ok(r.requestId, 'with the request id its receipt is found by');
  }
  assert.ok(
    generated.some((r) => r.path === '/v1/chat/completions' && r.localInput?.tokenizer === 'o200k_base'),
    "the chat check's input counted",
  );
  assert.ok(!JSON.stringify(records).includes(a.tokens.production), 'masked tokens only');
  const own = diagnoseBody(d, { secrets: [a.tokens.production], activeGateway: true });
  assert.ok(!own.includes('data-testid="gateway-row"'), 'no overview row: it would repeat the checks');
  assert.equal(own.match(/<th scope="col">/g)?.length, 5, "the checks' table only");
  assert.match(own, /<section data-testid="gateway-report" data-gateway="a">/);
  assert.match(
    own,
    new RegExp(`data-testid="gateway-head">.*${escapeRe(maskToken(a.tokens.production))}.* · balance \\$`),
  );
  assert.match(own, /<button data-testid="fix-base-url" data-fix="\d+">/);
  for (const id of ['copy-report', 'rerun', 'rerun-media', 'support-report'])
    assert.ok(own.includes(`data-testid="${id}"`), id);
  assert.match(own, /data-testid="diagnosis-summary"><b>Summary: 1 failed, 1 warning, \d+ passed, \d+ skipped/);
  assert.ok(!own.includes(a.tokens.production));
  // The same diagnosis shown as another gateway's: nothing that would act on this window's gateway.
  const other = diagnoseBody(d, { secrets: [a.tokens.production] });
  for (const mark of ['data-fix=', 'rerun-media', 'support-report']) assert.ok(!other.includes(mark), mark);
});

test('Diagnose Connection checks only the configured models: with none, nothing is generated', async () => {
  const { gateways, tokens } = await gatewaysWithTokens();
  const bare = { ...gateways[0], models: undefined };
  // (a model the gateway lists for /v1/responses only is checked there whatever is configured)
  const generated = () => a.log.filter((l) => /^\/v1\/(chat\/completions|messages)$/.test(l.path)).length;
  await diagnoseGateways({ gateways: [bare], token: tokens.token, timeouts, pickModels: false });
  assert.equal(generated(), 0, 'no model picked, nothing billed');
  await diagnoseGateways({ gateways: [bare], token: tokens.token, timeouts });
  assert.ok(generated() > 0, 'Diagnose All Gateways and relay-doctor pick the first listed models');
});

test('cancelled before it starts: no gateway is asked for a generation (nothing billed)', async () => {
  const { gateways, tokens } = await gatewaysWithTokens();
  const ac = new AbortController();
  ac.abort();
  await diagnoseGateways({ gateways, token: tokens.token, timeouts, signal: ac.signal }).catch(() => undefined);
  for (const s of [a, b])
    assert.equal(s.log.filter((l) => /^\/v1\/(chat\/completions|messages)$/.test(l.path) && l.status < 300).length, 0);
});

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
