// E2E for "beyond the panel": gateway models in VS Code's own chat (model picker + @relay), and
// Claude Code's variables (Set Up Tools → Claude Code) in a new integrated terminal.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { startScenario } from './harness.mjs';

let sim;
let vs;
let workspace;
let scenario;

before(async () => {
  scenario = await startScenario({
    tokenName: 'native-cli',
    settings: { 'modelRelay.models.chat': 'gpt-4o-mini', 'modelRelay.models.native': 'claude-sonnet-4-5' },
  });
  ({ sim, vs, workspace } = scenario);
});

after(() => scenario?.stop());

test("VS Code's language model API lists gateway models and a prompt is answered through them", async () => {
  // The built-in chat view needs a Copilot sign-in here (no network), so the same path is driven
  // through vscode.lm.selectChatModels + sendRequest inside the extension host.
  await vs.waitForText('Relay: native-cli', 60_000);
  await vs.runCommand('Model Relay: Check Gateway Models in VS Code Chat');
  await vs.page.locator('.quick-input-widget', { hasText: 'gateway models in VS Code' }).waitFor({ timeout: 30_000 });
  const text = await vs.pageText();
  assert.ok(text.includes('claude-sonnet-4-5'), 'the native-cli group model is offered');
  await vs.screenshot('beyond-01-lm-models');
  await vs.answerInput('claude-sonnet-4-5');
  await vs.waitForText('answered through VS Code', 60_000);
  assert.match(await vs.pageText(), /Echo: Reply with a short greeting\./);
  const rec = sim.log.filter((r) => r.path === '/v1/messages').at(-1);
  assert.ok(rec && rec.status === 200 && rec.stream, 'answered on the native surface, streamed');
  await vs.screenshot('beyond-02-lm-answer');
});

test('Set Up Tools → Claude Code (formerly Set Up Native CLI): a new terminal has the root base URL (no /v1) and the token', async () => {
  await vs.runCommand('Model Relay: Set Up Tools…');
  await vs.answerInput('Claude Code', { expect: 'Set Up Tools' });
  await vs.answerInput("None: keep the tool's own defaults", { expect: 'ANTHROPIC_MODEL' });
  await vs.page.getByRole('button', { name: 'Open New Terminal' }).click();
  const term = vs.page.locator('.terminal-wrapper.active, .terminal-wrapper').last();
  await term.waitFor({ timeout: 30_000 });
  await vs.page.waitForTimeout(1500);
  await term.click();
  const out = join(workspace, 'cli-env.txt');
  await vs.page.keyboard.type(`printf '%s\\n%s\\n' "$ANTHROPIC_BASE_URL" "$ANTHROPIC_AUTH_TOKEN" > ${out}\n`);
  for (let i = 0; i < 60 && !existsSync(out); i++) await new Promise((r) => setTimeout(r, 250));
  const [base, token] = readFileSync(out, 'utf8').split('\n');
  assert.equal(base, sim.url, 'the root address');
  assert.ok(!base.endsWith('/v1'));
  assert.ok(token === sim.tokens['native-cli'], 'the token of the chosen name');
  rmSync(out);
  await vs.screenshot('beyond-03-terminal');
});
