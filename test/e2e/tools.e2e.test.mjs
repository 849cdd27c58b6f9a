// E2E with the real terminal tools (issues 26, 37): Claude Code 2.1.331, Codex CLI 0.169.0, GitHub
// Copilot CLI 1.0.102 and Gemini CLI 0.61.0 from the e2e cache (setup-clis.sh), in code-server with a temporary HOME for the
// tools. Set Up Tools… sets each up (Codex's config.toml only after its diff was shown and Apply
// pressed; Copilot CLI with terminal variables only), then a new integrated terminal runs them
// non-interactively; each reaches the simulator with the stored token and prints its reply. A planted
// ~/.claude/settings.json env override is found by Diagnose and fixed by its row's Fix button (after
// the diff; the backup kept in the extension's storage), after which Claude Code reaches the
// configured gateway again. Then a second gateway is added and Copilot CLI set up on it; after a
// switch back, each tool still calls its own gateway, and each simulator saw only its own tokens.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import { ensureCodeServer, repoRoot, startScenario, webviewFrame } from './harness.mjs';

const { startSimulator, defaultConfig, credentialDigest } = createRequire(import.meta.url)(
  join(repoRoot, 'out/test/sim/server.js'),
);

let scenario;
let sim;
/** a second gateway, its tokens other than the first's (each simulator records every credential it sees) */
let simB;
let vs;
let workspace;
let home;
let out;
/** the CLIs by their full paths (a login shell may reset PATH) */
let claudeBin;
let codexBin;
let copilotBin;
let geminiBin;

const masked = (t) => `${t.slice(0, 6)}...${t.slice(-4)}`;
const PROMPT = 'Reply with the word ok';

before(async () => {
  const { CLAUDE, CODEX, COPILOT, GEMINI } = ensureCodeServer();
  assert.ok(CLAUDE && CODEX && COPILOT && GEMINI, 'setup-clis.sh installed the four CLIs');
  [claudeBin, codexBin, copilotBin, geminiBin] = [CLAUDE, CODEX, COPILOT, GEMINI];
  home = mkdtempSync(join(tmpdir(), 'relay-tools-home-'));
  out = join(home, 'out');
  mkdirSync(out);
  // Installed as a user would: the CLIs' folder on the login shell's PATH, which VS Code's server
  // gives the extension host and new terminals (Diagnose looks for the tools there).
  writeFileSync(
    join(home, '.profile'),
    `export PATH="${dirname(CLAUDE)}:${dirname(COPILOT)}:${dirname(GEMINI)}:$PATH"\n`,
  );
  // The user's own Codex config: update check and analytics off (kept through the setup's edit).
  mkdirSync(join(home, '.codex'));
  writeFileSync(
    join(home, '.codex', 'config.toml'),
    '# my Codex settings\ncheck_for_update_on_startup = false\n\n[analytics]\nenabled = false\n',
  );
  scenario = await startScenario({
    tokenName: 'production',
    simOptions: { profile: 'real' },
    env: {
      HOME: home,
      PATH: `${dirname(CLAUDE)}:${dirname(COPILOT)}:${dirname(GEMINI)}:${process.env.PATH}`,
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      CODEX_HOME: join(home, '.codex'),
    },
  });
  ({ sim, vs, workspace } = scenario);
  simB = await startSimulator({
    profile: 'real',
    tokens: defaultConfig().tokens.map((t) => ({ ...t, value: `sk-2nd${t.value.slice(6)}` })),
  });
});

after(async () => {
  await scenario?.stop();
  await simB?.close();
  if (home) rmSync(home, { recursive: true, force: true });
});

/** Runs a line in a new integrated terminal and waits for the marker file it writes last. */
async function inNewTerminal(line, marker, timeout = 180_000) {
  await vs.runCommand('Terminal: Create New Terminal');
  const term = vs.page.locator('.terminal-wrapper.active, .terminal-wrapper').last();
  await term.waitFor({ timeout: 30_000 });
  await vs.page.waitForTimeout(1500);
  await term.click();
  await vs.page.keyboard.type(`${line}; echo done > ${marker}\n`);
  const start = Date.now();
  while (!existsSync(marker)) {
    if (Date.now() - start > timeout) throw new Error(`the terminal did not finish within ${timeout} ms: ${line}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

const since = (n, path) => sim.log.slice(n).filter((r) => r.path.split('?')[0] === path);

test('Set Up Tools…: Claude Code with a model mapping (no file), Codex after its diff and Apply', async () => {
  await vs.waitForText('Relay: production', 240_000).catch(async (e) => {
    await vs.screenshot('tools-00-failed-start');
    throw new Error(`${e.message}\n${vs.logs.join('').slice(-3000)}`);
  });
  await vs.runCommand('Model Relay: Set Up Tools…');
  await vs.page.locator('.quick-input-widget', { hasText: 'Codex CLI' }).waitFor({ timeout: 60_000 });
  const picker = await vs.pageText();
  assert.match(picker, /Claude Code/);
  assert.match(picker, /Gemini CLI/);
  assert.match(picker, /opencode/);
  assert.match(picker, /GitHub Copilot CLI/);
  await vs.screenshot('tools-01-set-up-tools-picker');
  await vs.answerInput('Claude Code');
  await vs.answerInput('claude-sonnet-4-5', { expect: 'ANTHROPIC_MODEL' });
  await vs.answerInput('The same model', { expect: 'ANTHROPIC_DEFAULT_HAIKU_MODEL' });
  await vs.waitForNotification('Claude Code is set up', 60_000);

  await vs.runCommand('Model Relay: Set Up Tools…');
  await vs.answerInput('Codex CLI', { expect: 'Set Up Tools' });
  await vs.answerInput('o3-pro', { expect: 'Codex CLI' });
  const apply = vs.page.getByRole('button', { name: 'Apply' });
  await apply.waitFor({ timeout: 60_000 }).catch(async (e) => {
    await vs.screenshot('tools-02-failed-no-apply');
    throw e;
  });
  const config = join(home, '.codex', 'config.toml');
  assert.ok(!readFileSync(config, 'utf8').includes('model_providers'), 'nothing written before Apply');
  await vs.page.waitForTimeout(1000); // the diff editor renders behind the modal
  await vs.screenshot('tools-02-diff-before-write');
  await apply.click();
  await vs.waitForNotification('Codex CLI is set up', 60_000);
  const toml = readFileSync(config, 'utf8');
  assert.match(toml, /# my Codex settings/, "the user's comment is kept");
  assert.match(toml, /wire_api = "responses"/);
  assert.match(toml, new RegExp(`base_url = "${sim.url}/v1"`));
  assert.ok(!toml.includes(sim.tokens.production), 'the token is never written to the file');
});

test('a new terminal: claude -p and codex exec reach the simulator with the stored token and print its reply', async () => {
  const n = sim.log.length;
  const claudeOut = join(out, 'claude.json');
  const codexOut = join(out, 'codex.jsonl');
  await inNewTerminal(
    `cd ${workspace} && ${claudeBin} -p "${PROMPT}" --output-format json --tools "" > ${claudeOut} 2> ${out}/claude.err; ` +
      `${codexBin} exec --skip-git-repo-check --ephemeral -s read-only --json "${PROMPT}" > ${codexOut} 2> ${out}/codex.err`,
    join(out, 'done-1'),
  );
  const text = readFileSync(claudeOut, 'utf8');
  assert.ok(text.trim(), `Claude Code printed nothing: ${readFileSync(join(out, 'claude.err'), 'utf8').slice(-1500)}`);
  const claude = JSON.parse(text);
  assert.equal(claude.is_error, false, readFileSync(join(out, 'claude.err'), 'utf8'));
  assert.match(claude.result, /^Echo: /, "the simulator's reply, printed by Claude Code");
  const messages = since(n, '/v1/messages');
  assert.ok(messages.length >= 1, 'Claude Code called /v1/messages');
  for (const r of messages) {
    assert.equal(r.tokenMasked, masked(sim.tokens.production), 'with the stored token');
    assert.equal(r.status, 200);
  }
  assert.equal(messages.at(-1).model, 'claude-sonnet-4-5', 'the mapped model');

  const events = readFileSync(codexOut, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  const reply = events.find((e) => e.type === 'item.completed' && e.item?.type === 'agent_message');
  assert.ok(reply, `Codex printed a reply: ${readFileSync(codexOut, 'utf8').slice(-800)}`);
  assert.match(reply.item.text, /^Tool \w+ returned: /, "the simulator's reply after Codex's tool turn");
  const responses = since(n, '/v1/responses');
  assert.ok(responses.length >= 1, 'Codex called /v1/responses');
  for (const r of responses) {
    assert.equal(r.tokenMasked, masked(sim.tokens.production));
    assert.equal(r.status, 200);
    assert.equal(r.model, 'o3-pro', 'the model picked in Set Up Tools…');
  }
  // both replies shown in the terminal for the screenshot
  await vs.page.keyboard.type(
    `clear; printf 'claude: '; head -c 160 ${claudeOut}; echo; grep -h agent_message ${codexOut} | head -c 240; echo\n`,
  );
  await vs.page.waitForTimeout(2000);
  await vs.screenshot('tools-03-terminal-replies');
});

test('Set Up Tools…: GitHub Copilot CLI for the simulator (variables only); copilot -p in a new terminal prints its reply', async () => {
  await vs.runCommand('Model Relay: Set Up Tools…');
  await vs.answerInput('GitHub Copilot CLI', { expect: 'Set Up Tools' });
  // Not a gpt-4o model: Copilot CLI sends them a reasoning_effort, which OpenAI (and the simulator) refuse.
  await vs.answerInput('gemini-2.5-flash', { expect: 'GitHub Copilot CLI' });
  await vs.waitForNotification('GitHub Copilot CLI is set up', 60_000).catch(async (e) => {
    await vs.screenshot('tools-06-failed-copilot-setup');
    throw e;
  });
  assert.ok(!existsSync(join(home, '.copilot', 'settings.json')), 'no file of its own was written');
  const n = sim.log.length;
  const copilotOut = join(out, 'copilot.txt');
  // -p: non-interactive; -s: only the agent's reply. Its tools are not allowed (no --allow-all-tools),
  // so the simulator's tool call is refused by Copilot CLI and the simulator answers about that.
  await inNewTerminal(
    `cd ${workspace} && ${copilotBin} -p "${PROMPT}" -s > ${copilotOut} 2> ${out}/copilot.err`,
    join(out, 'done-copilot'),
  );
  const reply = readFileSync(copilotOut, 'utf8');
  assert.match(
    reply,
    /Tool \w+ returned: /,
    `the simulator's reply after Copilot CLI's tool turn: ${reply.slice(-800)}${readFileSync(join(out, 'copilot.err'), 'utf8').slice(-800)}`,
  );
  const chats = since(n, '/v1/chat/completions');
  assert.ok(chats.length >= 2, 'Copilot CLI called /v1/chat/completions (its turn, then the tool result)');
  for (const r of chats) {
    assert.equal(r.tokenMasked, masked(sim.tokens.production), 'with the stored token');
    assert.equal(r.status, 200);
    assert.equal(r.model, 'gemini-2.5-flash', 'the model picked in Set Up Tools…');
  }
  await vs.page.keyboard.type(`clear; printf 'copilot: '; head -c 240 ${copilotOut}; echo\n`);
  await vs.page.waitForTimeout(2000);
  await vs.screenshot('tools-06-copilot-terminal-reply');
});

test('Set Up Tools…: Gemini CLI (the API key selected as its sign-in method, after the diff); gemini -p in a new terminal prints its reply', async () => {
  await vs.runCommand('Model Relay: Set Up Tools…');
  await vs.answerInput('Gemini CLI', { expect: 'Set Up Tools' });
  await vs.answerInput('gemini-2.5-flash', { expect: 'Gemini CLI' });
  const apply = vs.page.getByRole('button', { name: 'Apply' });
  await apply.waitFor({ timeout: 60_000 }).catch(async (e) => {
    await vs.screenshot('tools-08-failed-gemini-no-apply');
    throw e;
  });
  await apply.click();
  await vs.waitForNotification('Gemini CLI is set up', 60_000);
  const settings = JSON.parse(readFileSync(join(home, '.gemini', 'settings.json'), 'utf8'));
  assert.equal(settings.security.auth.selectedType, 'gemini-api-key', 'without it Gemini CLI 0.61 refuses -p');
  const n = sim.log.length;
  const geminiOut = join(out, 'gemini.txt');
  // --skip-trust: Gemini CLI asks to trust a folder before it runs headless there
  await inNewTerminal(
    `cd ${workspace} && ${geminiBin} -p "${PROMPT}" --skip-trust > ${geminiOut} 2> ${out}/gemini.err`,
    join(out, 'done-gemini'),
  );
  const reply = readFileSync(geminiOut, 'utf8');
  assert.match(
    reply,
    /Echo: /,
    `the simulator's reply: ${reply.slice(-600)}${readFileSync(join(out, 'gemini.err'), 'utf8').slice(-800)}`,
  );
  const calls = sim.log
    .slice(n)
    .filter((r) => /^\/v1beta\/models\/gemini-2\.5-flash:streamGenerateContent/.test(r.path));
  assert.ok(calls.length >= 1, 'Gemini CLI called streamGenerateContent');
  for (const r of calls) {
    assert.equal(r.tokenMasked, masked(sim.tokens.production), 'with the stored token');
    assert.equal(r.status, 200);
  }
});

test("a planted ~/.claude/settings.json env override is found by Diagnose, fixed by its row's button after the diff (a backup kept), and Claude Code reaches the gateway again", async () => {
  const settings = join(home, '.claude', 'settings.json');
  mkdirSync(dirname(settings), { recursive: true });
  writeFileSync(
    settings,
    '{\n  // mine\n  "theme": "dark",\n  "env": { "ANTHROPIC_BASE_URL": "http://127.0.0.1:9", "FOO": "1" }\n}\n',
  );
  await vs.runCommand('Model Relay: Diagnose Connection');
  const p = webviewFrame(vs.page);
  await p.locator('[data-testid="diagnosis-summary"]').waitFor({ state: 'visible', timeout: 120_000 });
  // Every tool has a row: Claude Code's shows the override that wins and its Fix.
  for (const id of ['claude-code', 'codex', 'gemini-cli', 'opencode', 'copilot-cli'])
    await p.locator(`[data-testid="check-tool-${id}"]`).waitFor({ timeout: 10_000 });
  const row = p.locator('[data-testid="check-tool-claude-code"]');
  const text = await row.innerText();
  if (!/^(fail|warn)$/.test((await row.getAttribute('data-result')) ?? '')) {
    await vs.screenshot('tools-05-failed-row');
    assert.fail(`Claude Code's row should fail or warn with the override:\n${text}`);
  }
  assert.match(text, /settings\.json/);
  assert.match(text, /ANTHROPIC_BASE_URL/);
  const fix = row.locator('[data-testid="fix-tool-claude-code"]');
  await fix.scrollIntoViewIfNeeded();
  await vs.screenshot('tools-05-diagnose-fix');
  await fix.click();
  const apply = vs.page.getByRole('button', { name: 'Apply' });
  await apply.waitFor({ timeout: 60_000 }).catch(async (e) => {
    await vs.screenshot('tools-05-failed-no-apply');
    throw e;
  });
  assert.match(readFileSync(settings, 'utf8'), /ANTHROPIC_BASE_URL/, 'nothing written before Apply');
  await vs.screenshot('tools-04-fix-override-diff');
  await apply.click();
  await vs.waitForNotification('settings.json written', 60_000);
  const fixed = readFileSync(settings, 'utf8');
  assert.ok(!fixed.includes('ANTHROPIC_BASE_URL'), 'just the conflicting key removed');
  assert.match(fixed, /"FOO": "1"/);
  assert.match(fixed, /\/\/ mine/, 'the comment is kept');
  assert.ok(!existsSync(`${settings}.model-relay.bak`), 'no backup beside the file');
  const said = (await vs.pageText()).match(/backup: (\/[^)\s]+)\)/);
  assert.ok(said, 'the notification names the backup');
  assert.ok(
    !said[1].startsWith(home),
    `the backup is kept in the extension's storage, not among the user's files: ${said[1]}`,
  );
  assert.match(readFileSync(said[1], 'utf8'), /ANTHROPIC_BASE_URL/, 'it holds the file as it was');
  // Diagnose runs again after the fix: Claude Code's probe now reaches the simulator.
  await webviewFrame(vs.page)
    .locator('[data-testid="check-tool-claude-code"][data-result="pass"]')
    .waitFor({ timeout: 120_000 });

  const n = sim.log.length;
  const claudeOut = join(out, 'claude-2.json');
  await inNewTerminal(
    `cd ${workspace} && ${claudeBin} -p "${PROMPT}" --output-format json --tools "" > ${claudeOut} 2> ${out}/claude-2.err`,
    join(out, 'done-2'),
  );
  assert.match(JSON.parse(readFileSync(claudeOut, 'utf8')).result, /^Echo: /);
  const messages = since(n, '/v1/messages');
  assert.ok(messages.length >= 1 && messages.every((r) => r.tokenMasked === masked(sim.tokens.production)));
});

test("a second gateway: Copilot CLI set up on it, then a switch back — each tool keeps its gateway's token, and each simulator saw only its own", async () => {
  await vs.runCommand('Model Relay: Add Gateway');
  await vs.answerInput(simB.url, { expect: 'Add Gateway (1/3)' });
  await vs.answerInput('Gateway B', { expect: 'Add Gateway (2/3)' });
  await vs.answerInput('production', { expect: 'Add Token (1/2)' });
  await vs.answerInput(simB.tokens.production, { expect: 'Add Token (2/2)' });
  await vs.waitForText('Gateway B · production', 60_000).catch(async (e) => {
    await vs.screenshot('tools-07-failed-second-gateway');
    throw e;
  });
  await vs.runCommand('Model Relay: Set Up Tools…');
  await vs.answerInput('GitHub Copilot CLI', { expect: 'Set Up Tools' });
  // Not a gpt-4o model: Copilot CLI sends them a reasoning_effort, which OpenAI (and the simulator) refuse.
  await vs.answerInput('gemini-2.5-flash', { expect: 'GitHub Copilot CLI' });
  await vs.waitForNotification('GitHub Copilot CLI is set up', 60_000);

  // back to the first gateway: Copilot CLI stays on B, Claude Code and Codex on the first
  await vs.runCommand('Model Relay: Switch Gateway');
  const first = vs.page.locator('.quick-input-list .monaco-list-row', { hasText: new URL(sim.url).host }).first();
  await first.waitFor({ state: 'visible', timeout: 20_000 });
  await first.click();
  await vs.waitForText(`${new URL(sim.url).host} · production`, 30_000);
  const nA = sim.log.length;
  const nB = simB.log.length;
  await inNewTerminal(
    `cd ${workspace} && ${copilotBin} -p "${PROMPT}" -s > ${out}/copilot-b.txt 2> ${out}/copilot-b.err; ` +
      `${claudeBin} -p "${PROMPT}" --output-format json --tools "" > ${out}/claude-3.json 2> ${out}/claude-3.err`,
    join(out, 'done-3'),
  );
  assert.match(readFileSync(join(out, 'copilot-b.txt'), 'utf8'), /Tool \w+ returned: /, 'Copilot CLI answered by B');
  assert.match(JSON.parse(readFileSync(join(out, 'claude-3.json'), 'utf8')).result, /^Echo: /, 'Claude Code by A');
  const b = simB.log.slice(nB).filter((r) => r.path.startsWith('/v1/chat/completions'));
  assert.ok(b.length >= 1 && b.every((r) => r.tokenMasked === masked(simB.tokens.production)), "B's token at B");
  assert.equal(since(nA, '/v1/chat/completions').length, 0, 'Copilot CLI did not follow the switch to A');
  assert.ok(since(nA, '/v1/messages').every((r) => r.tokenMasked === masked(sim.tokens.production)));
  const own = { a: Object.values(sim.tokens), b: Object.values(simB.tokens) };
  const stray = (s, tokens) => tokens.filter((v) => s.credentials.includes(credentialDigest(v))).map(masked);
  assert.deepEqual(stray(sim, own.b), [], "the first gateway never saw B's tokens");
  assert.deepEqual(stray(simB, own.a), [], "B never saw the first gateway's tokens");
  await vs.screenshot('tools-07-two-gateways');
});
