// E2E for the chat webview in a real VS Code: streamed replies on both surfaces, Stop closing the
// connection early, the 403 error card, a proxy's 504 page (sent once, Retry (may be billed again)), an attached image (refused for a model without image input,
// then sent), a reasoning model's Thinking section, history surviving a reload, and inert malicious output.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { repoRoot, startScenario, webviewFrame } from './harness.mjs';

const { makePng } = createRequire(import.meta.url)(join(repoRoot, 'out/test/sim/server.js'));
const png = makePng('e2e-attachment', 48);

let sim;
let vs;
let scenario;
const dialogs = [];

before(async () => {
  scenario = await startScenario({
    settings: {
      'modelRelay.models.chat': 'gpt-4o-mini',
      'modelRelay.models.native': 'claude-sonnet-4-5',
      'modelRelay.models.image': 'gpt-image-1',
    },
  });
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
  await chat()
    .locator('[data-testid="chat-model"] option[value="gpt-4o-mini"]')
    .waitFor({ state: 'attached', timeout: 30_000 });
}

async function send(surface, model, text) {
  const c = chat();
  await c.locator('[data-testid="chat-surface"]').selectOption(surface);
  await c.locator('[data-testid="chat-model"]').selectOption(model);
  await c.locator('[data-testid="chat-input"]').fill(text);
  await c.locator('[data-testid="chat-input"]').press('Enter');
}

const assistant = () => chat().locator('[data-testid="chat-message"][data-role="assistant"]');

/** Collapses or expands a view of the Model Relay container (room for the chat in screenshots). */
async function setPaneExpanded(title, expanded) {
  const header = vs.page.locator(`.part.sidebar .pane-header:has(h3.title:text-is("${title}"))`).first();
  if ((await header.getAttribute('aria-expanded')) !== String(expanded)) await header.click();
}

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
  assert.deepEqual(
    recs.map((r) => [r.path, r.stream]),
    [
      ['/v1/chat/completions', true],
      ['/v1/messages', true],
    ],
  );
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
    await chat()
      .locator('[data-testid="chat-message"][data-role="assistant"][data-status="stopped"]')
      .waitFor({ timeout: 15_000 });
    assert.doesNotMatch(await msg.innerText(), /word59/);
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(chatRequests().at(-1).closedEarly, true, 'the simulator saw the connection close before the end');
    await vs.screenshot('chat-02-stopped');
  } finally {
    delete sim.config.replyText;
  }
});

test('a 403 shows the error card with the cause and the fix', async () => {
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
  sim.config.replyText =
    '<script>window.parent.__pwned=1</script> <img src=x onerror="window.__pwned=2"> [click](javascript:window.__pwned=3) <iframe src="https://example.com"></iframe> ![remote](https://example.com/x.png)';
  try {
    await send('compatible', 'gpt-4o-mini', 'say something nasty');
    const msg = assistant().last();
    await chat()
      .locator('[data-testid="chat-message"][data-role="assistant"][data-status="done"]')
      .last()
      .waitFor({ timeout: 30_000 });
    const c = chat();
    assert.equal(await msg.locator('script, iframe, img[onerror], [onerror], a[href^="javascript:"]').count(), 0);
    assert.equal(await c.locator('img[src="x"], img[src^="https://"]').count(), 0);
    const links = msg.locator('a');
    for (let i = 0; i < (await links.count()); i++)
      assert.doesNotMatch((await links.nth(i).getAttribute('href')) ?? '', /^javascript:/i);
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
  const img = assistant().last().locator('[data-testid="chat-message-image"]');
  await img.waitFor({ timeout: 30_000 });
  await img.evaluate((el) => (el.complete ? undefined : new Promise((r) => el.addEventListener('load', r))));
  assert.ok(await img.evaluate((el) => el.complete && el.naturalWidth > 0), 'the image rendered');
  // The image is a file under the extension's storage, shown by its webview URI: no base64 in the page.
  assert.doesNotMatch(String(await img.getAttribute('src')), /^data:/);
  assert.doesNotMatch(await assistant().last().innerText(), /base64/);
  assert.equal(sim.log.filter((r) => r.path === '/v1/images/generations').length, 1);
  await vs.screenshot('chat-05-inline-image');
});

test('an image attached with the picker: refused for a model without image input (kept), then sent and described', async () => {
  await setPaneExpanded('Video Tasks', false);
  const c = chat();
  await c.locator('[data-testid="chat-surface"]').selectOption('compatible');
  await c.locator('[data-testid="chat-model"]').selectOption('deepseek-reasoner');
  assert.equal(await c.locator('[data-testid="chat-attach"]').getAttribute('aria-label'), 'Attach image');
  await c
    .locator('[data-testid="chat-file-input"]')
    .setInputFiles({ name: 'pixel.png', mimeType: 'image/png', buffer: png });
  const thumb = c.locator('[data-testid="chat-attachment"]');
  await thumb.waitFor({ timeout: 15_000 });
  await c.locator('[data-testid="chat-input"]').fill('what is in this picture?');
  const before = chatRequests().length;
  await c.locator('[data-testid="chat-input"]').press('Enter');
  const note = c.locator('[data-testid="chat-composer-note"]');
  await note.filter({ hasText: 'does not accept images' }).waitFor({ timeout: 15_000 });
  assert.match(await note.innerText(), /deepseek-reasoner does not accept images.*gpt-4o/s);
  assert.equal(
    await c.locator('[data-testid="chat-input"]').inputValue(),
    'what is in this picture?',
    'the text is kept',
  );
  assert.equal(await thumb.count(), 1, 'the image is kept');
  assert.equal(chatRequests().length, before, 'nothing was sent');
  await note.scrollIntoViewIfNeeded();
  await vs.screenshot('chat-07-image-refused');

  await c.locator('[data-testid="chat-model"]').selectOption('gpt-4o-mini');
  await c.locator('[data-testid="chat-input"]').press('Enter');
  const reply = assistant().last();
  await chat()
    .locator('[data-testid="chat-message"][data-role="assistant"][data-status="done"]', { hasText: 'I see 1 image' })
    .waitFor({ timeout: 30_000 });
  assert.match(
    await reply.innerText(),
    new RegExp(`I see 1 image \\(image/png, ${png.length} bytes\\)\\. Echo: what is in this picture\\?`),
  );
  const shown = c
    .locator('[data-testid="chat-message"][data-role="user"]')
    .last()
    .locator('[data-testid="chat-message-image"]');
  await shown.waitFor({ timeout: 15_000 });
  assert.equal(await shown.getAttribute('alt'), 'pixel.png');
  assert.ok(
    await shown.evaluate((el) => el.complete && el.naturalWidth === 48),
    'the thumbnail rendered under the CSP',
  );
  assert.equal(await thumb.count(), 0, 'the composer is empty again');
  assert.equal(await note.isVisible(), false);
  await vs.screenshot('chat-08-image-sent');
  await shown.click();
  assert.equal(await shown.locator('xpath=..').getAttribute('aria-expanded'), 'true', 'a click shows it larger');
  assert.ok((await shown.evaluate((el) => el.getBoundingClientRect().width)) > 100, 'shown larger');
  await shown.click();
  assert.equal(await shown.locator('xpath=..').getAttribute('aria-expanded'), 'false', 'and smaller again');
});

test('a reasoning model: its reasoning is a collapsed Thinking section above the reply', async () => {
  await send('compatible', 'deepseek-reasoner', 'ponder this');
  await chat()
    .locator('[data-testid="chat-message"][data-role="assistant"][data-status="done"]', {
      hasText: 'Echo: ponder this',
    })
    .waitFor({ timeout: 30_000 });
  const msg = assistant().last();
  const thinking = msg.locator('[data-testid="chat-thinking"]');
  assert.equal(await thinking.evaluate((d) => d.open), false, 'collapsed');
  assert.match(await thinking.locator('summary').innerText(), /^Thought for <?\d+(\.\d)? s$/);
  assert.equal(await msg.locator('[data-testid="chat-thinking-text"]').isVisible(), false);
  await thinking.locator('summary').click();
  await msg
    .locator('[data-testid="chat-thinking-text"]', { hasText: 'Let me think about this.' })
    .waitFor({ state: 'visible', timeout: 10_000 });
  assert.equal(await msg.locator('[data-testid="chat-message-body"]').innerText(), 'Echo: ponder this');
  await vs.screenshot('chat-09-thinking');
  await setPaneExpanded('Video Tasks', true);
});

test('a proxy’s 504 page: sent once, the card says it may have been billed, and Retry (may be billed again) asks once more', async () => {
  const before = chatRequests().length;
  sim.fault({ kind: 'proxyPage', path: '/v1/chat/completions', count: 1 });
  await send('compatible', 'gpt-4o-mini', 'one billed question');
  const card = chat().locator('[data-testid="chat-error-card"][data-http-status="504"]');
  await card.waitFor({ timeout: 30_000 });
  assert.equal(chatRequests().length, before + 1, 'sent once: no retry, no backup domain');
  assert.match(await card.locator('[data-testid="chat-error-billing"]').innerText(), /may have reached the gateway/);
  await card.locator('[data-testid="chat-error-arrival"]').waitFor({ timeout: 15_000 });
  const retry = card.locator('[data-testid="chat-error-retry-billed"]');
  assert.equal(await retry.innerText(), 'Retry (may be billed again)');
  await vs.screenshot('chat-10-billed-card');
  await retry.click();
  await assistant()
    .last()
    .locator('[data-testid="chat-message-body"]', { hasText: 'Echo: one billed question' })
    .waitFor({ timeout: 30_000 });
  assert.equal(chatRequests().length, before + 2, 'the user’s retry is the one more request');
  assert.equal(await card.count(), 0, 'the failed reply was replaced');
});

test('reloading the window keeps the history and re-sends nothing', async () => {
  const before = chatRequests().length;
  const count = await chat().locator('[data-testid="chat-message"]').count();
  await vs.runCommand('Developer: Reload Window');
  await vs.page.waitForSelector('.monaco-workbench', { timeout: 90_000 });
  await vs.waitForText('Relay: production', 60_000);
  await openChat();
  await chat()
    .locator('[data-testid="chat-message"]')
    .nth(count - 1)
    .waitFor({ timeout: 30_000 });
  assert.equal(await chat().locator('[data-testid="chat-message"]').count(), count);
  assert.match(await chat().locator('[data-testid="chat-messages"]').innerText(), /Echo: hello native surface/);
  assert.equal(chatRequests().length, before, 'nothing re-sent');
  assert.equal(sim.log.filter((r) => r.path === '/v1/images/generations').length, 1, 'no image re-generated');
  const images = chat().locator('[data-testid="chat-message-image"]');
  assert.equal(await images.count(), 2, 'the generated and the attached image were saved with the chat');
  for (const img of await images.all()) {
    await img.evaluate((el) => (el.complete ? undefined : new Promise((r) => el.addEventListener('load', r))));
    assert.ok(await img.evaluate((el) => el.naturalWidth > 0), 'restored from its file');
  }
  assert.match(await chat().locator('[data-testid="chat-thinking"] summary').last().innerText(), /^Thought for/);
  await vs.screenshot('chat-06-after-reload');
});
