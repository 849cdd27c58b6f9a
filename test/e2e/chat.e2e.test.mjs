// E2E for the chat webview in a real VS Code: streamed replies on both surfaces, Stop closing the
// connection early, the 403 error card, history surviving a reload, and inert malicious output.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startScenario, webviewFrame } from './harness.mjs';

let sim;
let vs;
let scenario;
const dialogs = [];

before(async () => {
  scenario = await startScenario({ settings: { 'modelRelay.models.chat': 'gpt-4o-mini', 'modelRelay.models.native': 'claude-sonnet-4-5', 'modelRelay.models.image': 'gpt-image-1' } });
  ({ sim, vs } = scenario);
  vs.page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
});

after(() => scenario?.stop());

const chat = () => webviewFrame(vs.page);
const chatRequests = () => sim.log.filter((r) => r.path === '/v1/chat/completions' || r.path === '/v1/messages');

async function openChat() {
  await vs.runCommand('Model Relay: Open Chat');
  await chat().locator('[data-testid="chat-input"]').waitFor({ state: 'visible', timeout: 60_000 });
  await chat().locator('[data-testid="chat-model"] option[value="gpt-4o-mini"]').waitFor({ state: 'attached', timeout: 30_000 });
}

async function send(surface, model, text) {
  const c = chat();
  await c.locator('[data-testid="chat-surface"]').selectOption(surface);
  await c.locator('[data-testid="chat-model"]').selectOption(model);
  await c.locator('[data-testid="chat-input"]').fill(text);
  await c.locator('[data-testid="chat-input"]').press('Enter');
}

const assistant = () => chat().locator('[data-testid="chat-message"][data-role="assistant"]');

test('a streamed reply on the compatible surface and one on the native surface', async () => {
  await vs.waitForText('Relay: production', 60_000);
  await openChat();
  await send('compatible', 'gpt-4o-mini', 'hello compatible surface');
  await assistant().nth(0).and(chat().locator('[data-status="done"]')).waitFor({ timeout: 30_000 });
  assert.match(await assistant().nth(0).innerText(), /Echo: hello compatible surface/);
  await send('native', 'claude-sonnet-4-5', 'hello native surface');
  await assistant().nth(1).and(chat().locator('[data-status="done"]')).waitFor({ timeout: 30_000 });
  assert.match(await assistant().nth(1).innerText(), /Echo: hello native surface/);
  assert.match(await assistant().nth(1).locator('[data-testid="chat-usage"]').innerText(), /\d/);
  const recs = chatRequests();
  assert.deepEqual(recs.map((r) => [r.path, r.stream]), [['/v1/chat/completions', true], ['/v1/messages', true]]);
  await vs.screenshot('chat-01-both-surfaces');
});

test('Stop aborts a slow stream: the partial reply is kept and the connection closed early', async () => {
  sim.config.replyText = Array.from({ length: 60 }, (_, i) => `word${i}`).join(' ');
  sim.fault({ kind: 'slowChunks', ms: 150, count: 1 });
  try {
    await send('compatible', 'gpt-4o-mini', 'a long answer please');
    const msg = assistant().nth(2);
    await msg.locator('[data-testid="chat-message-body"]', { hasText: 'word3' }).waitFor({ timeout: 30_000 });
    await chat().locator('[data-testid="chat-stop"]').click();
    await chat().locator('[data-testid="chat-message"][data-role="assistant"][data-status="stopped"]').waitFor({ timeout: 15_000 });
    assert.doesNotMatch(await msg.innerText(), /word59/);
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(chatRequests().at(-1).closedEarly, true, 'the simulator saw the connection close before the end');
    await vs.screenshot('chat-02-stopped');
  } finally {
    delete sim.config.replyText;
  }
});

test("a 403 shows the error card with the cause and the fix", async () => {
  await send('compatible', 'gpt-4o', 'are you there');
  const card = chat().locator('[data-testid="chat-error-card"]').last();
  await card.waitFor({ timeout: 30_000 });
  assert.equal(await card.getAttribute('data-http-status'), '403');
  assert.match(await card.locator('[data-testid="chat-error-cause"]').innerText(), /group/i);
  assert.ok((await card.locator('[data-testid="chat-error-fix"]').innerText()).length > 10);
  assert.match(await card.locator('[data-testid="chat-error-token"]').innerText(), /sk-Pr0\.\.\.Lk5d/);
  await vs.screenshot('chat-03-error-card');
});

test('a malicious reply executes nothing and injects no element', async () => {
  sim.config.replyText = '<script>window.parent.__pwned=1</script> <img src=x onerror="window.__pwned=2"> [click](javascript:window.__pwned=3) <iframe src="https://example.com"></iframe> ![remote](https://example.com/x.png)';
  try {
    await send('compatible', 'gpt-4o-mini', 'say something nasty');
    const msg = assistant().last();
    await chat().locator('[data-testid="chat-message"][data-role="assistant"][data-status="done"]').last().waitFor({ timeout: 30_000 });
    const c = chat();
    assert.equal(await msg.locator('script, iframe, img[onerror], [onerror], a[href^="javascript:"]').count(), 0);
    assert.equal(await c.locator('img[src="x"], img[src^="https://"]').count(), 0);
    const links = msg.locator('a');
    for (let i = 0; i < (await links.count()); i++) assert.doesNotMatch((await links.nth(i).getAttribute('href')) ?? '', /^javascript:/i);
    const pwned = await vs.page.evaluate(() => window.__pwned);
    assert.equal(pwned, undefined);
    assert.deepEqual(dialogs, []);
    await vs.screenshot('chat-04-malicious-inert');
  } finally {
    delete sim.config.replyText;
  }
});

test('/image renders the generated image inline in the chat', async () => {
  await send('compatible', 'gpt-4o-mini', '/image a lighthouse at dusk');
  const img = assistant().last().locator('img[src^="data:image/png;base64,"]');
  await img.waitFor({ timeout: 30_000 });
  assert.ok(await img.evaluate((el) => el.complete && el.naturalWidth > 0), 'the image rendered');
  assert.equal(sim.log.filter((r) => r.path === '/v1/images/generations').length, 1);
  await vs.screenshot('chat-05-inline-image');
});

test('reloading the window keeps the history and re-sends nothing', async () => {
  const before = chatRequests().length;
  const count = await chat().locator('[data-testid="chat-message"]').count();
  await vs.runCommand('Developer: Reload Window');
  await vs.page.waitForSelector('.monaco-workbench', { timeout: 90_000 });
  await vs.waitForText('Relay: production', 60_000);
  await openChat();
  await chat().locator('[data-testid="chat-message"]').nth(count - 1).waitFor({ timeout: 30_000 });
  assert.equal(await chat().locator('[data-testid="chat-message"]').count(), count);
  assert.match(await chat().locator('[data-testid="chat-messages"]').innerText(), /Echo: hello native surface/);
  assert.equal(chatRequests().length, before, 'nothing re-sent');
  assert.equal(sim.log.filter((r) => r.path === '/v1/images/generations').length, 1, 'no image re-generated');
  await vs.screenshot('chat-06-after-reload');
});
