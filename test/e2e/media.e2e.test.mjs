// E2E for images and videos in a real VS Code: an image from the editor selection shown in the
// preview panel and saved in the workspace; an image edited from the Explorer; a video task watched
// in the Video Tasks view until its file is downloaded; a failed task showing its reason.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { repoRoot, startScenario, webviewFrame } from './harness.mjs';

const { makePng } = createRequire(import.meta.url)(join(repoRoot, 'out/test/sim/server.js'));

let sim;
let vs;
let workspace;
let scenario;

before(async () => {
  scenario = await startScenario({
    files: { 'prompts.md': 'A lighthouse at dusk\n', 'source.png': makePng('source image', 32) },
    settings: {
      'modelRelay.models.image': 'gpt-image-1',
      'modelRelay.models.imageEdit': 'gpt-image-1',
      'modelRelay.models.video': 'sora-2',
    },
  });
  ({ sim, vs, workspace } = scenario);
});

after(() => scenario?.stop());

const webview = () => webviewFrame(vs.page);
const files = (dir) => (existsSync(join(workspace, dir)) ? readdirSync(join(workspace, dir)) : []);

test('generate an image from the editor selection: saved and shown in the preview panel', async () => {
  await vs.waitForText('Relay: production', 60_000);
  await vs.runCommand('View: Show Explorer');
  await vs.page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'prompts.md' }).click();
  await vs.page.locator('.monaco-editor .view-lines', { hasText: 'lighthouse' }).waitFor({ timeout: 30_000 });
  await vs.page.locator('.monaco-editor .view-lines').first().click();
  await vs.page.keyboard.press('Control+A');
  await vs.runCommand('Model Relay: Generate Image from Selection');
  await vs.answerInput('512x512', { expect: 'image size' });
  await webview().locator('[data-testid="preview-image"]').waitFor({ timeout: 60_000 });
  const meta = await webview().locator('[data-testid="preview-meta"]').innerText();
  assert.match(meta, /A lighthouse at dusk/);
  assert.match(meta, /gpt-image-1/);
  assert.match(meta, /512x512/);
  const saved = files('.model-relay/images');
  assert.equal(saved.length, 1);
  assert.match(saved[0], /a-lighthouse-at-dusk\.png$/);
  assert.ok(
    await webview()
      .locator('[data-testid="preview-image"]')
      .evaluate((img) => img.complete && img.naturalWidth > 0),
    'the image rendered',
  );
  const req = sim.log.find((r) => r.path === '/v1/images/generations');
  assert.equal(req.status, 200);
  await vs.screenshot('media-01-image-preview');
});

test('edit an image from the Explorer: the edited image beside the original', async () => {
  await vs.runCommand('View: Close All Editors');
  await vs.runCommand('View: Show Explorer');
  const row = vs.page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'source.png' });
  await row.waitFor({ timeout: 30_000 });
  await row.click({ button: 'right' });
  const item = vs.page.locator('.context-view .action-label', { hasText: 'Edit Image' });
  await item.hover();
  await vs.page.keyboard.press('Enter');
  await vs.answerInput('make it blue', { expect: 'Edit source.png' });
  await webview().locator('[data-testid="preview-original"]').waitFor({ timeout: 60_000 });
  await webview().locator('[data-testid="preview-image"]').waitFor();
  const edited = files('.model-relay/images').filter((f) => f.includes('make-it-blue-edit'));
  assert.equal(edited.length, 1);
  const req = sim.log.find((r) => r.path === '/v1/images/edits');
  assert.equal(req.status, 200);
  assert.match(req.headers['content-type'], /^multipart\/form-data/);
  await vs.screenshot('media-02-image-edit');
});

test('generate a video: the Video Tasks view follows it until the file is downloaded', async () => {
  await vs.runCommand('View: Close All Editors');
  await vs.runCommand('Model Relay: Generate Video');
  await vs.answerInput('waves on a beach', { expect: 'Generate Video' });
  await vs.answerInput('4', { expect: 'video length' });
  const view = vs.page.locator('.pane', { hasText: 'Video Tasks' });
  await view.locator('.monaco-list-row', { hasText: 'waves on a beach' }).waitFor({ timeout: 30_000 });
  await vs.screenshot('media-03-video-queued');
  await view.locator('.monaco-list-row', { hasText: 'downloaded' }).waitFor({ timeout: 90_000 });
  const videos = files('.model-relay/videos');
  assert.equal(videos.length, 1);
  assert.match(videos[0], /waves-on-a-beach\.mp4$/);
  const polls = sim.log.filter((r) => /^\/v1\/videos\/[^/]+$/.test(r.path));
  assert.ok(polls.length >= 3, 'polled until completed');
  const content = sim.log.filter((r) => r.path.endsWith('/content'));
  assert.equal(content.length, 1, 'content downloaded once, after completion');
  assert.ok(content[0].time >= polls.at(-1).time, 'never before completion');
  await vs.screenshot('media-04-video-downloaded');
});

test('a failed video task shows its reason', async () => {
  sim.config.video = {
    pollsUntilInProgress: 1,
    pollsUntilDone: 2,
    outcome: 'failed',
    failureReason: 'the prompt was rejected by the content filter',
  };
  await vs.runCommand('Model Relay: Generate Video');
  await vs.answerInput('forbidden scene', { expect: 'Generate Video' });
  await vs.answerInput('4', { expect: 'video length' });
  await vs.waitForText('the prompt was rejected by the content filter', 90_000);
  const view = vs.page.locator('.pane', { hasText: 'Video Tasks' });
  await view
    .locator('.monaco-list-row', { hasText: 'forbidden scene' })
    .filter({ hasText: 'failed' })
    .waitFor({ timeout: 30_000 });
  await vs.screenshot('media-05-video-failed');
});
