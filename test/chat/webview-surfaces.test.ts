/**
 * The webview and the three surfaces: the picker's third surface lists its models, a model the
 * gateway taught to answer only on /v1/responses says so where it is listed elsewhere, and a reply
 * names the surface that answered in words (updated when the request moved).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ModelList } from '../../src/shared/chatProtocol';
import { harness, reply, snapshot } from './webview-harness';

const models: ModelList = {
  groups: [
    {
      gateway: { id: 'a', name: 'Alpha' },
      active: true,
      items: [
        { id: 'gpt-4o-mini', capabilities: ['chat'] },
        { id: 'gpt-5.5-codex', capabilities: ['chat'], learnt: 'responses' },
        { id: 'o3-pro', capabilities: ['responses'] },
      ],
      defaults: { compatible: 'gpt-4o-mini', native: '', responses: '' },
    },
  ],
  loading: false,
};

const labels = (select: HTMLSelectElement) => Array.from(select.options).map((o) => o.textContent);

test('the surface picker has three surfaces; a learnt model says where it answers; the responses list is its own', () => {
  const h = harness();
  h.app.handle({ type: 'init', state: snapshot([]), models });
  const surface = h.q<HTMLSelectElement>('chat-surface')!;
  assert.deepEqual(labels(surface), [
    'Compatible (chat completions)',
    'Native (messages)',
    'Responses (Responses API)',
  ]);
  const model = h.q<HTMLSelectElement>('chat-model')!;
  assert.deepEqual(labels(model), [
    'gpt-4o-mini (default)',
    'gpt-5.5-codex (answers only on responses: learnt from the gateway)',
  ]);
  surface.value = 'responses';
  surface.dispatchEvent(new h.win.Event('change'));
  assert.deepEqual(labels(model), ['gpt-5.5-codex', 'o3-pro']);
});

test("a reply's head names its surface in words, and the surface it moved to once the reply ends", () => {
  const h = harness();
  const moving = reply('a1', '', { status: 'streaming', model: 'gpt-5.5-codex' });
  h.app.handle({ type: 'init', state: snapshot([moving]), models });
  const head = () => h.win.document.querySelector('.msg-head')?.textContent;
  assert.equal(head(), 'gpt-5.5-codex · compatible');
  h.app.handle({ type: 'entryUpdated', entry: { ...moving, text: 'hi', status: 'done', surface: 'responses' } });
  assert.equal(head(), 'gpt-5.5-codex · responses');
});
