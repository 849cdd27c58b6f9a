// E2E for several gateways in a real VS Code (code-server) against two simulators: today's
// modelRelay.baseUrl is the first gateway (the seeded token is its token), a second gateway comes from
// modelRelay.gateways (machine settings); a click on the status bar opens Switch Gateway, picking the
// second changes the status bar to "Gateway B · no token", a token added then belongs to B — B's
// simulator sees it and the first never does. The Status view is a tree of both gateways (the active one
// expanded); a gateway node's inline "Switch to This Gateway" switches to it. The chat's model picker
// shows both gateways' models in groups, a reply goes to the picked model's gateway, and with A
// failing before the first byte, modelRelay.fallbacks moves the reply to B with a line in the chat.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { launchVSCode, repoRoot, webviewFrame } from './harness.mjs';

const { startSimulator, credentialDigest } = createRequire(import.meta.url)(join(repoRoot, 'out/test/sim/server.js'));

let simA;
let simB;
let vs;
let workspace;

before(async () => {
  simA = await startSimulator();
  simB = await startSimulator();
  workspace = mkdtempSync(join(tmpdir(), 'relay-gateways-'));
  const machine = {
    'modelRelay.baseUrl': simA.url,
    'modelRelay.gateways': [{ id: 'b', name: 'Gateway B', baseUrl: simB.url }],
    'modelRelay.fallbacks': { 'gpt-4o-mini': [{ gateway: 'b', model: 'gpt-4o-mini' }] },
    'modelRelay.maxRetries': 0,
  };
  vs = await launchVSCode({
    workspaceDir: workspace,
    settings: machine,
    machineSettings: machine,
    env: { MODEL_RELAY_SEED_TOKEN: simA.tokens.production, MODEL_RELAY_SEED_TOKEN_NAME: 'production' },
  });
});

after(async () => {
  await vs?.close();
  await simA?.close();
  await simB?.close();
  if (workspace) rmSync(workspace, { recursive: true, force: true });
});

const item = (text) => vs.page.locator('.statusbar-item', { hasText: text }).first();
/** The status bar's texts, for a failure's message. */
const bar = async () => (await vs.page.locator('.statusbar-item').allInnerTexts()).join(' | ');
/** Waits for `text` in the workbench; on failure says what the status bar showed. */
async function waitFor(text, timeout = 30_000) {
  await vs.waitForText(text, timeout).catch(async (e) => {
    throw new Error(`${e.message}; status bar: ${await bar()}`);
  });
}

test('two gateways: the status bar names the active one; one click switches; a token added belongs to the new one', async () => {
  // The first gateway is made from modelRelay.baseUrl and named after its host; the seeded token is its token.
  const first = `${new URL(simA.url).host} · production`;
  await waitFor(first, 90_000);
  await vs.screenshot('gateways-01-first');
  await item(first).click();
  const row = vs.page.locator('.quick-input-list .monaco-list-row', { hasText: 'Gateway B' }).first();
  await row.waitFor({ state: 'visible', timeout: 20_000 });
  await vs.screenshot('gateways-02-switch-pick');
  await row.click();
  await waitFor('Gateway B · no token');

  await vs.runCommand('Model Relay: Add Token');
  await vs.answerInput('test', { expect: 'Add Token (1/2)' });
  await vs.answerInput(simB.tokens.test, { expect: 'Add Token (2/2)' });
  await waitFor('Gateway B · test');
  await vs.screenshot('gateways-03-second');
  // B's balance is read with B's token; A never sees it (the same names exist on both simulators).
  const end = Date.now() + 30_000;
  while (!simB.log.some((r) => r.tokenName === 'test') && Date.now() < end)
    await new Promise((r) => setTimeout(r, 500));
  assert.ok(
    simB.log.some((r) => r.tokenName === 'test'),
    "gateway B's simulator saw B's token",
  );
  assert.ok(!simB.log.some((r) => r.tokenName === 'production'), "gateway B's simulator never saw A's token");
  assert.ok(!simA.log.some((r) => r.tokenName === 'test'), "gateway A's simulator never saw B's token");

  // Back to the first gateway from the status bar: its token is still there.
  await item('Gateway B · test').click();
  const back = vs.page.locator('.quick-input-list .monaco-list-row', { hasText: new URL(simA.url).host }).first();
  await back.waitFor({ state: 'visible', timeout: 20_000 });
  await back.click();
  await waitFor(first);
});

/** The pane of one of our views (its header and body), by the view's name. */
const pane = (name) => vs.page.locator('.pane', { has: vs.page.locator('.pane-header', { hasText: name }) }).first();
/** A gateway's node in the Status view (a top-level row). */
const gatewayNode = (name) => pane('Status').locator('.monaco-list-row[aria-level="1"]', { hasText: name }).first();

async function waitForAttribute(locator, name, value, timeout = 30_000) {
  const end = Date.now() + timeout;
  let seen;
  while (Date.now() < end) {
    seen = await locator.getAttribute(name).catch(() => undefined);
    if (seen === value) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${name} stayed ${seen}, expected ${value}`);
}

test('the Status view is a tree of both gateways: the active one expanded, the other collapsed; its inline action switches to it', async () => {
  const first = new URL(simA.url).host;
  await vs.runCommand('Model Relay: Focus on Status View');
  await gatewayNode('Gateway B').waitFor({ state: 'visible', timeout: 30_000 });
  await gatewayNode(first).waitFor({ state: 'visible', timeout: 30_000 });
  await waitForAttribute(gatewayNode(first), 'aria-expanded', 'true');
  assert.equal(await gatewayNode('Gateway B').getAttribute('aria-expanded'), 'false', 'the other gateway is collapsed');
  // The active gateway's children: its tokens (masked) and its last request are shown.
  const tokens = pane('Status').locator('.monaco-list-row[aria-level="2"]', { hasText: 'Tokens' });
  assert.equal(await tokens.count(), 1, "only the active gateway's children are shown");
  assert.ok(!(await pane('Status').innerText()).includes(simA.tokens.production), 'no token in the view');
  await vs.screenshot('gateways-04-status-tree');

  // The inline action shows on hover; a tree refreshed under the pointer (a balance or request arriving)
  // can take the click's row away: hover and click again, a bounded number of times, until it switched.
  for (let tries = 1; ; tries++) {
    await gatewayNode('Gateway B').hover();
    await gatewayNode('Gateway B').locator('.action-label[aria-label="Switch to This Gateway"]').click();
    const switched = await vs.waitForText('Gateway B · test', 10_000).then(
      () => true,
      () => false,
    );
    if (switched) break;
    if (tries === 3) await waitFor('Gateway B · test', 1);
  }
  await waitForAttribute(gatewayNode('Gateway B'), 'aria-expanded', 'true');
  await waitForAttribute(gatewayNode(first), 'aria-expanded', 'false');
  await vs.screenshot('gateways-05-status-tree-switched');
});

const chat = () => webviewFrame(vs.page);
const chatPaths = /^\/v1\/(chat\/completions|messages)$/;
const chats = (sim) => sim.log.filter((r) => chatPaths.test(r.path));
const replies = () => chat().locator('[data-testid="chat-message"][data-role="assistant"]');

/** Picks `model` of gateway `gateway` in the grouped picker (the same id may be in both groups). */
async function pick(gateway, model) {
  const select = chat().locator('[data-testid="chat-model"]');
  const index = await select.evaluate(
    (s, [g, m]) => [...s.options].findIndex((o) => o.value === m && o.getAttribute('data-gateway') === g),
    [gateway, model],
  );
  assert.ok(index >= 0, `${model} of gateway ${gateway} is in the picker`);
  await select.selectOption({ index });
}

async function say(text) {
  await chat().locator('[data-testid="chat-input"]').fill(text);
  await chat().locator('[data-testid="chat-input"]').press('Enter');
}

test('the chat: the picker groups both gateways, a reply goes to the picked gateway, a failover to B is shown', async () => {
  await vs.runCommand('Model Relay: Open Chat');
  await chat().locator('[data-testid="chat-input"]').waitFor({ state: 'visible', timeout: 60_000 });
  const groups = chat().locator('[data-testid="chat-model"] optgroup');
  const end = Date.now() + 30_000;
  while ((await groups.count()) < 2 && Date.now() < end) await new Promise((r) => setTimeout(r, 250));
  const labels = await groups.evaluateAll((gs) => gs.map((g) => g.getAttribute('label') ?? ''));
  assert.equal(labels.length, 2, `two groups: ${labels.join(' | ')}`);
  assert.ok(labels.some((l) => l.includes('Gateway B')) && labels.some((l) => l.includes(new URL(simA.url).host)));

  // A's model, asked of A with A's token only.
  const [a0, b0] = [chats(simA).length, chats(simB).length];
  await pick('default', 'gpt-4o-mini');
  await say('hello gateway A');
  await replies().nth(0).and(chat().locator('[data-status="done"]')).waitFor({ timeout: 30_000 });
  assert.match(await replies().nth(0).innerText(), /Echo: hello gateway A/);
  assert.equal(chats(simA).length, a0 + 1);
  assert.equal(chats(simB).length, b0, 'B was not asked');
  assert.equal(chats(simA).at(-1).tokenName, 'production');

  // A refuses before the first byte (503, no retries set): the fallback B answers, and the chat says so.
  simA.fault({ kind: 'status', status: 503, path: '/v1/chat/completions', count: 1 });
  await pick('default', 'gpt-4o-mini');
  await say('hello through the fallback');
  await replies().nth(1).and(chat().locator('[data-status="done"]')).waitFor({ timeout: 30_000 });
  const notice = replies().nth(1).locator('[data-testid="chat-failover-notice"]');
  await notice.waitFor({ timeout: 10_000 });
  assert.match(await notice.innerText(), /Gateway B/);
  assert.match(await replies().nth(1).innerText(), /Echo: hello through the fallback/);
  assert.match(await replies().nth(1).innerText(), /Gateway B/, 'the footer names the gateway that answered');
  assert.equal(chats(simB).at(-1).tokenName, 'test', "B was asked with B's token");
  assert.ok(!simB.credentials.includes(credentialDigest(simA.tokens.production)), "B never saw A's token");
  assert.ok(!simA.credentials.includes(credentialDigest(simB.tokens.test)), "A never saw B's token");
  await vs.screenshot('gateways-06-chat-failover');
});
