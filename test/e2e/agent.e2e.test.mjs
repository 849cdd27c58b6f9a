// E2E for the agent path: Model Relay's models and tools used through vscode.lm the way agent mode
// uses them — a tool-calling loop on both gateway surfaces, an image question, token counts, and the
// three language-model tools. VS Code's chat UI needs a Copilot sign-in here (no network), so the
// fixture extension fixtures/lm-driver (installed beside the packaged vsix) makes the calls from
// inside the extension host and writes each outcome as JSON to the file `lmDriver.outFile`.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startScenario } from './harness.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const outDir = mkdtempSync(join(tmpdir(), 'relay-lm-driver-'));
const outFile = join(outDir, 'outcome.json');

let sim;
let vs;
let workspace;
let scenario;

before(async () => {
  scenario = await startScenario({
    tokenName: 'production', // group "default": gpt-4o-mini, claude-sonnet-4-5 and gpt-image-1 are usable
    extraExtensions: [join(here, 'fixtures/lm-driver')],
    settings: {
      'modelRelay.models.chat': 'gpt-4o-mini',
      'modelRelay.models.native': 'claude-sonnet-4-5',
      'modelRelay.models.image': 'gpt-image-1',
      'modelRelay.images.outputFolder': '.model-relay/images',
      'lmDriver.outFile': outFile,
    },
  });
  ({ sim, vs, workspace } = scenario);
  await vs.waitForText('Relay: production', 60_000);
});

after(async () => {
  await scenario?.stop();
  rmSync(outDir, { recursive: true, force: true });
});

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The provider's id of a model: `<gateway id>/<model id>` (the settings here make the `default` gateway). */
const lmId = (model) => `default/${model}`;

/**
 * Runs an LM Driver command (answering its model prompt), confirms any modal dialog VS Code shows
 * meanwhile (recording its text), waits for "LM Driver: <label> done|failed", returns the outcome.
 */
async function drive(title, label, { model, timeout = 150_000 } = {}) {
  rmSync(outFile, { force: true });
  await vs.runCommand('Notifications: Clear All Notifications').catch(() => {});
  await vs.runCommand(title);
  if (model) await vs.answerInput(lmId(model), { expect: 'LM Driver: model id' });
  const dialogs = [];
  const toast = vs.page.locator('.notification-toast', { hasText: `LM Driver: ${label} ` }).first();
  const end = Date.now() + timeout;
  for (;;) {
    if (await toast.isVisible().catch(() => false)) break;
    const dialog = vs.page.locator('.monaco-dialog-box').first();
    if (await dialog.isVisible().catch(() => false)) {
      const text = (await dialog.innerText().catch(() => '')).trim();
      const buttons = await dialog
        .locator('.dialog-buttons .monaco-button')
        .allInnerTexts()
        .catch(() => []);
      dialogs.push({ text, buttons });
      const yes = dialog
        .locator('.dialog-buttons .monaco-button', { hasText: /^(yes|allow|ok|continue|generate|run|confirm)/i })
        .first();
      await vs.screenshot(`agent-dialog-${label.replace(/\W+/g, '-')}`);
      await ((await yes.count()) ? yes : dialog.locator('.dialog-buttons .monaco-button').first()).click();
      await sleep(500);
      continue;
    }
    if (Date.now() > end)
      throw new Error(
        `no "LM Driver: ${label} done|failed" notification within ${timeout} ms${dialogs.length ? ` (dialogs: ${JSON.stringify(dialogs)})` : ''}`,
      );
    await sleep(250);
  }
  const message = (await toast.innerText()).trim();
  for (let i = 0; i < 40 && !existsSync(outFile); i++) await sleep(250);
  assert.ok(existsSync(outFile), `the driver wrote ${outFile} (notification: ${message})`);
  const out = JSON.parse(readFileSync(outFile, 'utf8'));
  out.dialogs = dialogs;
  out.message = message;
  // never a full token anywhere in what came back
  const raw = JSON.stringify(out);
  for (const t of Object.values(sim.tokens)) assert.ok(!raw.includes(t), 'no full token in the outcome');
  return out;
}

/** Simulator records of `path` made while the scenario ran. */
const during = (out, path, from = out.startedAt, to = out.finishedAt) =>
  sim.log.filter((r) => r.path === path && r.time >= from - 5 && r.time <= to + 5);

async function toolLoop(t, model, path, otherPath, shot) {
  const out = await drive('LM Driver: Tool Loop', `toolLoop ${lmId(model)}`, { model });
  t.diagnostic(JSON.stringify({ model: out.model, turn1: out.turn1, turn2: out.turn2, dialogs: out.dialogs }));
  assert.ok(out.ok, `the scenario ran: ${out.error} (${out.message})`);
  assert.equal(out.model.id, lmId(model));
  const calls = out.turn1.parts.filter((p) => p.kind === 'toolCall');
  assert.equal(calls.length, 1, 'turn 1: exactly one tool call part');
  assert.equal(out.turn1.toolCall.name, 'get_weather');
  assert.ok(out.turn1.toolCall.callId, 'the call has an id');
  assert.equal(typeof out.turn1.toolCall.input.city, 'string');
  assert.ok(out.turn1.toolCall.input.city.length > 0, 'the call names a city');
  assert.match(out.turn2.text, /Tool get_weather returned: 18°C and sunny/);
  const recs = during(out, path);
  assert.equal(recs.length, 2, `two requests on ${path} (one per turn): ${JSON.stringify(recs.map((r) => r.status))}`);
  for (const r of recs) {
    assert.equal(r.status, 200);
    assert.equal(r.stream, true, 'streamed');
    assert.equal(r.model, model);
  }
  assert.equal(during(out, otherPath).length, 0, `nothing on ${otherPath}`);
  assert.deepEqual(out.dialogs, [], 'no consent dialog for another extension using the models');
  await vs.screenshot(shot);
  return out;
}

test('tool loop on gpt-4o-mini (compatible surface): a get_weather call, then an answer about its result', async (t) => {
  await toolLoop(t, 'gpt-4o-mini', '/v1/chat/completions', '/v1/messages', 'agent-01-tool-loop-compatible');
});

test('tool loop on claude-sonnet-4-5 (native surface): a get_weather call, then an answer about its result', async (t) => {
  await toolLoop(t, 'claude-sonnet-4-5', '/v1/messages', '/v1/chat/completions', 'agent-02-tool-loop-native');
});

test('tool loop on deepseek-v4-pro (reasoning, compatible surface): its reasoning goes back with the call, no refusal', async (t) => {
  // The simulator refuses the second turn (400) without reasoning_content: two 200s mean the provider's cache sent it.
  await toolLoop(t, 'deepseek-v4-pro', '/v1/chat/completions', '/v1/messages', 'agent-02b-tool-loop-reasoning');
});

test('tool loop on gpt-5.5-codex (responses-only; this gateway lists no endpoint types): one refusal moves it to /v1/responses, then it goes there directly', async (t) => {
  const model = 'gpt-5.5-codex';
  const out = await drive('LM Driver: Tool Loop', `toolLoop ${lmId(model)}`, { model });
  t.diagnostic(JSON.stringify({ model: out.model, turn1: out.turn1, turn2: out.turn2 }));
  assert.ok(out.ok, `the scenario ran: ${out.error} (${out.message})`);
  assert.equal(out.turn1.toolCall.name, 'get_weather');
  assert.match(out.turn2.text, /Tool get_weather returned: 18°C and sunny/);
  // The first request went where the list said (compatible) and was refused before any reply: not billed.
  const refused = during(out, '/v1/chat/completions');
  assert.deepEqual(
    refused.map((r) => [r.status, r.model]),
    [[404, model]],
    'one refused request on /v1/chat/completions, the first turn only',
  );
  const answered = during(out, '/v1/responses');
  assert.deepEqual(
    answered.map((r) => [r.status, r.model, r.stream]),
    [
      [200, model, true],
      [200, model, true],
    ],
    'both turns answered on /v1/responses',
  );
  assert.ok(refused[0].time <= answered[0].time, 'the refusal came first');
  await vs.screenshot('agent-02d-tool-loop-learnt-responses');
});

for (const [model, path, shot] of [
  ['gpt-4o-mini', '/v1/chat/completions', 'agent-03-image-compatible'],
  ['claude-sonnet-4-5', '/v1/messages', 'agent-04-image-native'],
]) {
  test(`image question on ${model}: the image reaches the gateway; capabilities and token counts`, async (t) => {
    const out = await drive('LM Driver: Image Question', `imageQuestion ${lmId(model)}`, { model });
    t.diagnostic(
      JSON.stringify({
        capabilities: out.capabilities,
        maxInputTokens: out.maxInputTokens,
        tokens: out.tokens,
        imageMessageTokens: out.imageMessageTokens,
        text: out.text,
      }),
    );
    assert.ok(out.dataPartExists, 'vscode.LanguageModelDataPart.image exists');
    assert.ok(out.ok, `the scenario ran: ${out.error} (${out.message})`);
    assert.ok(
      out.text.startsWith('I see 1 image (image/png'),
      `the simulator saw the PNG: ${JSON.stringify(out.text)}`,
    );
    assert.ok(out.text.includes(`${out.imageBytes} bytes`), 'all of its bytes');
    const recs = during(out, path);
    assert.equal(recs.length, 1);
    assert.equal(recs[0].status, 200);
    // what VS Code tells consumers about the model
    assert.equal(out.capabilities?.supportsToolCalling, true, 'supportsToolCalling');
    assert.equal(out.capabilities?.supportsImageToText, true, 'supportsImageToText');
    assert.equal(typeof out.maxInputTokens, 'number');
    assert.ok(out.maxInputTokens > 1024, `maxInputTokens ${out.maxInputTokens}`);
    // a real tokenizer: a chars/4 estimate would count the 9 Chinese characters as 3
    assert.ok(out.tokens['模型中转网关的令牌'] > 5, `模型中转网关的令牌 counts ${out.tokens['模型中转网关的令牌']}`);
    assert.ok(
      out.tokens['hello world'] >= 1 && out.tokens['hello world'] <= 4,
      `hello world counts ${out.tokens['hello world']}`,
    );
    await vs.screenshot(shot);
  });
}

test('the three Model Relay tools: listed in vscode.lm.tools and invoked through vscode.lm.invokeTool', async (t) => {
  const out = await drive('LM Driver: Invoke Model Relay Tools', 'tools');
  t.diagnostic(
    JSON.stringify({
      tools: out.tools?.map((x) => x.name),
      invocations: out.invocations,
      dialogs: out.dialogs,
      message: out.message,
    }),
  );
  const names = (out.tools ?? []).map((x) => x.name);
  for (const n of ['modelRelay_generateImage', 'modelRelay_listModels', 'modelRelay_diagnose'])
    assert.ok(names.includes(n), `${n} is listed in vscode.lm.tools (listed: ${names.join(', ') || 'none'})`);

  const list = out.invocations.modelRelay_listModels;
  assert.ok(list.ok, `listModels: ${list.error}`);
  assert.match(list.text, /gpt-4o-mini/);

  const diag = out.invocations.modelRelay_diagnose;
  assert.ok(diag.ok, `diagnose: ${diag.error}`);
  assert.ok(diag.text.trim().length > 0, 'a non-empty report');
  const host = new URL(sim.url).host;
  assert.ok(
    diag.text.includes(host) || /Base URL shape|Reachability|Model visibility|Token/.test(diag.text),
    `the report names the base URL host or a check: ${diag.text.slice(0, 300)}`,
  );

  const img = out.invocations.modelRelay_generateImage;
  assert.ok(img.ok, `generateImage: ${img.error}`);
  const m = /([^\s'"`()<>\[\]]+\.png)\b/.exec(img.text);
  assert.ok(m, `the result names a .png: ${img.text}`);
  const file = isAbsolute(m[1]) ? m[1] : resolve(workspace, m[1]);
  assert.ok(!relative(workspace, file).startsWith('..'), `${file} is inside the workspace`);
  assert.ok(existsSync(file) && statSync(file).size > 0, `${file} exists`);
  if (out.dataPartExists) assert.ok(img.hasImage, `an image data part came back (parts: ${JSON.stringify(img.parts)})`);
  // invokeTool without a chat session: VS Code shows the tool's confirmation as a modal dialog
  // two confirmations: #relayDiagnose (it sends requests with the token, some billed), then the billed image
  assert.equal(out.dialogs.length, 2, `two confirmations (diagnose, image): ${JSON.stringify(out.dialogs)}`);
  assert.match(out.dialogs[0].text, /Diagnose the connection/);
  assert.match(out.dialogs[0].text, /with your token/);
  assert.match(out.dialogs[0].text, /bill/i);
  assert.match(out.dialogs[1].text, /gpt-image-1/);
  assert.match(out.dialogs[1].text, /a red square/);
  assert.match(out.dialogs[1].text, /bill/i);
  const gens = during(out, '/v1/images/generations', img.startedAt, img.finishedAt);
  assert.equal(gens.length, 1, 'one image generation for the invocation');
  assert.equal(gens[0].status, 200);
  assert.equal(gens[0].model, 'gpt-image-1');
  assert.equal(
    sim.log.filter((r) => r.path === '/v1/images/generations').length,
    1,
    'the only billed image call of the run (diagnose made none)',
  );
  await vs.screenshot('agent-05-tools');
});
