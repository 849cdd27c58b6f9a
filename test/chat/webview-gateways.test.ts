/**
 * The webview with several gateways: the model picker grouped by gateway (an `<optgroup>` a screen
 * reader names, each gateway's own prices, a failed gateway's line beside the others' models), the
 * choice sent as model and gateway, the reply's footer naming the gateway that answered, and the
 * failover line.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ModelList } from '../../src/shared/chatProtocol';
import { harness, reply, snapshot, user } from './webview-harness';

const twoGateways: ModelList = {
  groups: [
    {
      gateway: { id: 'a', name: 'Alpha' },
      active: true,
      items: [
        { id: 'gpt-4o-mini', capabilities: ['chat'], price: '$0.15 in / $0.60 out per 1M tokens' },
        { id: 'gpt-4o' },
      ],
      defaults: { compatible: 'gpt-4o-mini', native: '' },
    },
    {
      gateway: { id: 'b', name: 'Beta' },
      active: false,
      items: [{ id: 'gpt-4o-mini', capabilities: ['chat'] }, { id: 'deepseek-chat' }],
      defaults: { compatible: '', native: '' },
    },
    {
      gateway: { id: 'c', name: 'Gamma' },
      active: false,
      items: [],
      defaults: { compatible: '', native: '' },
      error: 'HTTP 503: down',
    },
  ],
  loading: false,
};

const optionsOf = (select: HTMLSelectElement) =>
  Array.from(select.querySelectorAll('optgroup')).map((g) => ({
    label: g.label,
    options: Array.from(g.querySelectorAll('option')).map((o) => `${o.disabled ? '(disabled) ' : ''}${o.textContent}`),
  }));

test('the picker groups models by gateway: labelled groups, prices of their own gateway, a failed gateway says why', () => {
  const h = harness();
  h.app.handle({ type: 'init', state: snapshot([]), models: twoGateways });
  const select = h.q<HTMLSelectElement>('chat-model')!;
  assert.deepEqual(optionsOf(select), [
    {
      label: 'Gateway Alpha (active)',
      options: ['gpt-4o-mini (default) · $0.15 in / $0.60 out per 1M tokens', 'gpt-4o'],
    },
    { label: 'Gateway Beta', options: ['deepseek-chat', 'gpt-4o-mini'] },
    { label: 'Gateway Gamma', options: ['(disabled) Gamma: could not list models: HTTP 503: down'] },
  ]);
  const chosen = select.options[select.selectedIndex];
  assert.equal(chosen.value, 'gpt-4o-mini');
  assert.equal(
    chosen.getAttribute('data-gateway'),
    'a',
    "the active gateway's model, as the host's options had no gateway",
  );
  assert.equal(h.q('chat-models-note')!.textContent, 'Gamma: could not list models: HTTP 503: down');
  assert.equal(h.q('chat-models-note')!.hidden, false);
});

test("choosing gateway B's gpt-4o-mini sends the model with its gateway; the choice comes back after a reload", () => {
  const h = harness();
  h.app.handle({ type: 'init', state: snapshot([]), models: twoGateways });
  const select = h.q<HTMLSelectElement>('chat-model')!;
  const betaMini = Array.from(select.options).find(
    (o) => o.value === 'gpt-4o-mini' && o.getAttribute('data-gateway') === 'b',
  )!;
  betaMini.selected = true;
  select.dispatchEvent(new h.win.Event('change'));
  const set = h.posted.at(-1)!;
  assert.equal(set.type, 'setOptions');
  assert.deepEqual(set.type === 'setOptions' && [set.options.model, set.options.gateway], ['gpt-4o-mini', 'b']);
  // The host's saved options name gateway B: the picker shows B's model, not A's of the same id.
  const again = harness();
  again.app.handle({
    type: 'init',
    state: snapshot([], {
      options: {
        surface: 'compatible',
        model: 'gpt-4o-mini',
        gateway: 'b',
        system: '',
        temperature: 0.3,
        maxTokens: 9,
      },
    }),
    models: twoGateways,
  });
  const s2 = again.q<HTMLSelectElement>('chat-model')!;
  assert.equal(s2.options[s2.selectedIndex].getAttribute('data-gateway'), 'b');
});

test('with one gateway the picker stays flat (no group), its options still naming the gateway', () => {
  const h = harness();
  h.app.handle({ type: 'init', state: snapshot([]), models: { ...twoGateways, groups: [twoGateways.groups[0]] } });
  const select = h.q<HTMLSelectElement>('chat-model')!;
  assert.equal(select.querySelectorAll('optgroup').length, 0);
  assert.equal(select.options[select.selectedIndex].getAttribute('data-gateway'), 'a');
});

test("the reply's footer names the gateway that answered; a failover shows as a line in the reply", () => {
  const h = harness();
  const failedOver = reply('r1', 'Echo: hi', {
    gateway: { id: 'b', name: 'Beta' },
    usage: { inputTokens: 3, outputTokens: 4 },
    durationMs: 1500,
    notices: [
      {
        kind: 'failover',
        text: 'Gateway "Alpha" (gpt-4o-mini) could not serve this request (HTTP 502: Bad Gateway), so gateway "Beta" (gpt-4o-mini) was asked instead.',
      },
    ],
  });
  h.app.handle({ type: 'init', state: snapshot([user('u1', 'hi'), failedOver]), models: twoGateways });
  h.frame();
  const [, msg] = h.messages();
  assert.equal(
    msg.querySelector('[data-testid="chat-usage"]')!.textContent,
    'answered by Beta · 3 input · 4 output tokens · 1.5 s',
  );
  const line = msg.querySelector('[data-testid="chat-failover-notice"]')!;
  assert.match(line.textContent!, /^Gateway "Alpha" .* gateway "Beta" \(gpt-4o-mini\) was asked instead\.$/);
  assert.equal(line.querySelector('button'), null, 'a line, no action and no modal');
  // An old reply without a gateway: the footer as before.
  h.app.handle({ type: 'entryAdded', entry: reply('r2', 'old', { usage: { inputTokens: 1, outputTokens: 2 } }) });
  h.frame();
  assert.equal(h.messages()[2].querySelector('[data-testid="chat-usage"]')!.textContent, '1 input · 2 output tokens');
});
