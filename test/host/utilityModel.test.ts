/**
 * "Use a Gateway Model for VS Code's Background Tasks", its logic against the simulator's real
 * new-api profile: the gateway's published prices rank its chat models (cheapest first), the first
 * that answers a one-line test is chosen (a model the token's group has no channel for is skipped,
 * after asking), the settings' changes are shown old → new, a value the user
 * set is named before it is replaced, chat.byokUtilityModelDefault is written only where VS Code
 * registers it, and the Diagnose finding warns only when nothing is set and only our models exist.
 */
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { runDiagnosis, type ModelPrice } from '../../src/gateway';
import {
  BYOK_UTILITY_DEFAULT_KEY,
  UTILITY_MODEL_KEY,
  UTILITY_SMALL_MODEL_KEY,
  backgroundTasksFinding,
  changeLines,
  confirmationDetail,
  confirmationMessage,
  firstAnswering,
  plannedChanges,
  rankByPrice,
  replacedKeys,
  typicalCost,
  utilityValue,
  type UtilityCandidate,
  type UtilitySettings,
} from '../../src/host/lm/utilityModel';
import { lmModelId } from '../../src/host/lm/lmGateways';
import { startSimulator, type Simulator } from '../sim/server';
import { makeClient } from '../gateway/helpers';

const VENDOR = 'model-relay';
let sim: Simulator;
before(async () => {
  sim = await startSimulator({ profile: 'real' });
});
after(() => sim.close());
beforeEach(() => sim.reset());

/** The gateway's chat models as the provider lists them, each with its published price. */
async function candidates(): Promise<UtilityCandidate[]> {
  const { client } = makeClient(sim);
  const [models, prices] = await Promise.all([client.listModels(), client.account.pricing()]);
  return models
    .filter((m) => !m.capabilities || m.capabilities.includes('chat') || m.capabilities.includes('native'))
    .map((m) => ({ id: lmModelId('default', m.id), model: m.id, price: prices?.get(m.id) }));
}

/** The test request the command makes: one line through the core, to the model's gateway. */
function answers(c: UtilityCandidate): Promise<void> {
  const { client } = makeClient(sim, { retry: { maxRetries: 0 } });
  return client
    .chat({
      surface: 'compatible',
      model: c.model,
      messages: [{ role: 'user', content: 'Reply with the single word OK.' }],
      maxTokens: 16,
    })
    .then(() => undefined);
}

const empty: UtilitySettings = { utilityModel: '', utilitySmallModel: '', byokDefault: 'copilot' };

test("the gateway's published prices rank its chat models, cheapest first; unpriced ones last", async () => {
  const ranked = rankByPrice(await candidates());
  const order = ranked.map((c) => c.model);
  assert.equal(order[0], 'gpt-4o-mini', `cheapest by published price: ${order.join(', ')}`);
  assert.ok(order.indexOf('deepseek-reasoner') < order.indexOf('claude-sonnet-4-5'));
  for (let i = 1; i < ranked.length; i++) {
    const a = typicalCost(ranked[i - 1].price);
    const b = typicalCost(ranked[i].price);
    if (a !== undefined && b !== undefined) assert.ok(a <= b, `${order[i - 1]} ≤ ${order[i]}`);
    if (a === undefined) assert.equal(b, undefined, 'no priced model after an unpriced one');
  }
});

test('without published prices: small tiers by name first, else the order given', () => {
  const c = (model: string, price?: ModelPrice): UtilityCandidate => ({ id: `g/${model}`, model, price });
  const per = (input: number, output: number): ModelPrice => ({
    model: 'x',
    input,
    output,
    unit: 'USD',
    groups: [],
    dynamic: false,
  });
  assert.deepEqual(
    rankByPrice([c('gpt-4o'), c('claude-haiku-4-5'), c('big-model'), c('gemini-flash')]).map((x) => x.model),
    ['claude-haiku-4-5', 'gemini-flash', 'gpt-4o', 'big-model'],
  );
  // a priced model beats any unpriced one; a tiered (dynamic) price counts as unpriced
  const tiered: ModelPrice = { model: 'q', unit: 'USD', groups: [], dynamic: true };
  assert.deepEqual(
    rankByPrice([c('qwen-mini', tiered), c('expensive', per(10, 30)), c('cheap', per(0.1, 0.4))]).map((x) => x.model),
    ['cheap', 'expensive', 'qwen-mini'],
  );
  // a per-call model is compared by its price per call
  const perCall: ModelPrice = { model: 'p', perCall: 0.5, unit: 'USD', groups: [], dynamic: false };
  assert.equal(rankByPrice([c('per-call', perCall), c('tokens', per(1, 2))])[0].model, 'tokens');
});

test('the first model that answers is chosen; one that fails is skipped only after asking, each tested once', async () => {
  const ranked = rankByPrice(await candidates());
  // the cheapest has no channel now: a 503 for its first request
  sim.fault({ kind: 'status', status: 503, path: '/v1/chat/completions', count: 1 });
  const asked: string[] = [];
  const { chosen, failed } = await firstAnswering(ranked, answers, async (f, next) => {
    asked.push(`${f.candidate.model} → ${next.model}`);
    return true;
  });
  assert.equal(failed.length, 1);
  assert.equal(failed[0].candidate.model, 'gpt-4o-mini');
  assert.match(failed[0].reason, /503|unavailable|channel/i);
  assert.deepEqual(asked, [`gpt-4o-mini → ${ranked[1].model}`]);
  assert.equal(chosen?.model, ranked[1].model, 'the next cheapest answered');
  const tests = sim.log.filter((r) => r.path === '/v1/chat/completions');
  // (the refused request is answered before its body is read: its model is not in the record)
  assert.deepEqual(
    tests.map((r) => r.status),
    [503, 200],
    'one test request per model, none repeated',
  );
  assert.equal(tests[1].model, ranked[1].model);
});

test('the user says no after a failure: nothing more is tried; at most `max` models are tested', async () => {
  const ranked = rankByPrice(await candidates());
  sim.fault({ kind: 'status', status: 503, path: '/v1/chat/completions', count: 10 });
  const no = await firstAnswering(ranked, answers, () => Promise.resolve(false));
  assert.equal(no.chosen, undefined);
  assert.equal(no.failed.length, 1);
  sim.reset();
  sim.fault({ kind: 'status', status: 503, path: '/v1/chat/completions', count: 10 });
  const capped = await firstAnswering(ranked, answers, () => Promise.resolve(true), 2);
  assert.equal(capped.chosen, undefined);
  assert.equal(capped.failed.length, 2);
  assert.equal(sim.log.filter((r) => r.path === '/v1/chat/completions').length, 2);
});

test('the changes: both utility keys as <vendor>/<id>, mainAgent where registered', () => {
  const value = utilityValue(VENDOR, lmModelId('default', 'gpt-4o-mini'));
  assert.equal(value, 'model-relay/default/gpt-4o-mini');
  // Copilot splits the value at the first "/" and asks selectChatModels({vendor, id})
  assert.equal(value.slice(0, value.indexOf('/')), VENDOR);
  assert.equal(value.slice(value.indexOf('/') + 1), 'default/gpt-4o-mini');
  const changes = plannedChanges(empty, value);
  assert.deepEqual(changes, [
    { key: UTILITY_MODEL_KEY, from: '', to: value },
    { key: UTILITY_SMALL_MODEL_KEY, from: '', to: value },
    { key: BYOK_UTILITY_DEFAULT_KEY, from: 'copilot', to: 'mainAgent' },
  ]);
  assert.deepEqual(changeLines(changes), [
    `chat.utilityModel: (empty) → "${value}"`,
    `chat.utilitySmallModel: (empty) → "${value}"`,
    'chat.byokUtilityModelDefault: "copilot" → "mainAgent"',
  ]);
  // before 1.128 the third key is not registered: not written
  assert.deepEqual(
    plannedChanges({ ...empty, byokDefault: undefined }, value).map((c) => c.key),
    [UTILITY_MODEL_KEY, UTILITY_SMALL_MODEL_KEY],
  );
  // already so: nothing to change
  assert.deepEqual(
    plannedChanges({ utilityModel: value, utilitySmallModel: value, byokDefault: 'mainAgent' }, value),
    [],
  );
});

test('a value the user set is named in the confirmation before it is replaced (never silently)', async () => {
  const [cheapest] = rankByPrice(await candidates());
  const value = utilityValue(VENDOR, cheapest.id);
  const changes = plannedChanges({ ...empty, utilitySmallModel: 'other/fast-model' }, value);
  assert.deepEqual(replacedKeys(changes), [UTILITY_SMALL_MODEL_KEY]);
  const detail = confirmationDetail(changes);
  assert.match(detail, /chat\.utilitySmallModel: "other\/fast-model" → "model-relay\/default\/gpt-4o-mini"/);
  assert.match(detail, /replaces the value you set in chat\.utilitySmallModel/);
  assert.match(detail, /billed|bills/);
  assert.match(confirmationMessage(cheapest), /gpt-4o-mini \(.+ per 1M tokens\), the cheapest gateway chat model/);
  assert.match(
    confirmationMessage({ ...cheapest, price: undefined }),
    /publishes no prices, so it was chosen as a small model by its name/,
  );
});

test('the Diagnose finding: a warning with a fix only when nothing is set and only our models are listed', () => {
  const only = { vendor: VENDOR, vendors: [VENDOR, VENDOR] };
  const warn = backgroundTasksFinding({ ...only, settings: empty });
  assert.equal(warn.result, 'warn');
  assert.match(warn.cause, /no model/);
  assert.deepEqual(warn.fixAction, { kind: 'use-gateway-for-background-tasks' });
  assert.ok(warn.details?.includes('chat.utilityModel: (empty)'));
  const set = 'model-relay/default/gpt-4o-mini';
  const ours = backgroundTasksFinding({ ...only, settings: { ...empty, utilityModel: set, utilitySmallModel: set } });
  assert.equal(ours.result, 'pass');
  assert.match(ours.cause, /use a gateway model/);
  assert.equal(ours.fixAction, undefined);
  assert.equal(backgroundTasksFinding({ ...only, settings: { ...empty, byokDefault: 'mainAgent' } }).result, 'pass');
  // Copilot's (or another vendor's) models are there: VS Code's default utility model applies
  assert.equal(
    backgroundTasksFinding({ vendor: VENDOR, vendors: [VENDOR, 'copilot'], settings: empty }).result,
    'pass',
  );
  // one key set, the other empty, only ours: still a warning
  assert.equal(backgroundTasksFinding({ ...only, settings: { ...empty, utilityModel: set } }).result, 'warn');
});

test("Diagnose reports the editor's finding as its own check; without one (relay-doctor) the check is not there", async () => {
  const finding = backgroundTasksFinding({ vendor: VENDOR, vendors: [VENDOR], settings: empty });
  const withIt = await runDiagnosis({ baseUrl: sim.url, token: sim.tokens.production, backgroundTasks: finding });
  const c = withIt.checks.find((x) => x.id === 'background-tasks');
  assert.equal(c?.result, 'warn');
  assert.equal(c?.title, "VS Code's background tasks");
  assert.equal(c?.cause, finding.cause);
  assert.deepEqual(c?.fixAction, { kind: 'use-gateway-for-background-tasks' });
  const without = await runDiagnosis({ baseUrl: sim.url, token: sim.tokens.production });
  assert.equal(
    without.checks.find((x) => x.id === 'background-tasks'),
    undefined,
  );
});
