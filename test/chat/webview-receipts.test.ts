/**
 * A reply's receipt in the chat webview (src/webview/entryExtras.ts ReceiptSection): its line as the
 * summary of a disclosure (keyboard: a native <summary>), the whole receipt under it in sections with
 * each check's state, the disclaimer, and the sentences of inconsistent checks shown without opening it
 * in the warning kind; open or closed as the user left it when the reply is updated; text only.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChatReceipt } from '../../src/shared/chatProtocol';
import { harness, models, reply, snapshot, user } from './webview-harness';

const receipt = (extra: Partial<ChatReceipt> = {}): ChatReceipt => ({
  line: 'Receipt: $0.0123 charged · consistent with the price list of 2026-06-01 14:02 UTC',
  kind: 'ok',
  warnings: [],
  sections: [
    { title: "The gateway's record", rows: [{ label: 'Billed model', value: 'gpt-4o-mini' }] },
    {
      title: 'Billing checks',
      rows: [
        {
          label: 'Price list',
          value: "According to the gateway's log, the ratios applied match the price list as of 2026-06-01 14:02 UTC.",
          check: { state: 'consistent', text: 'consistent' },
        },
      ],
    },
  ],
  disclaimer: 'No relay can currently prove which model served a request.',
  ...extra,
});

test('a reply with a receipt shows its line, closed; the whole receipt opens under it with each check’s state and the disclaimer', () => {
  const h = harness();
  h.app.handle({ type: 'init', state: snapshot([user('u1', 'q'), reply('a1', 'hi', { receipt: receipt() })]), models });
  const box = h.q('chat-receipt')!;
  assert.equal(box.getAttribute('data-kind'), 'ok');
  const summary = h.q('chat-receipt-line')!;
  assert.equal(summary.tagName, 'SUMMARY');
  assert.equal(summary.parentElement!.tagName, 'DETAILS');
  assert.equal((summary.parentElement as HTMLDetailsElement).open, false);
  assert.equal(summary.textContent, receipt().line);
  const row = h.q('chat-receipt-row')!.closest('dl')!.parentElement!;
  assert.match(row.textContent!, /Billed model.*gpt-4o-mini.*Billing checks.*Price list.*consistent According/s);
  assert.equal(h.q('chat-receipt-state')!.getAttribute('data-state'), 'consistent');
  assert.equal(h.q('chat-receipt-disclaimer')!.textContent, receipt().disclaimer);
  assert.equal(h.q('chat-receipt-warning'), null);
  // a reply without a receipt shows none
  h.app.handle({ type: 'entryUpdated', entry: reply('a1', 'hi') });
  assert.equal(h.q('chat-receipt'), null);
});

test('an inconsistent receipt: the warning kind and its sentence under the line, as text; opened stays open across updates', () => {
  const h = harness();
  h.app.handle({ type: 'init', state: snapshot([user('u1', 'q'), reply('a1', 'hi')]), models });
  assert.equal(h.q('chat-receipt'), null, 'no line before the host found the receipt');
  const warn = receipt({
    line: "Receipt: $0.0185 charged · inconsistent according to the gateway's log",
    kind: 'warning',
    warnings: ["According to the gateway's log, the ratios applied differ <b>from</b> the price list."],
  });
  h.app.handle({ type: 'entryUpdated', entry: reply('a1', 'hi', { receipt: warn }) });
  assert.equal(h.q('chat-receipt')!.getAttribute('data-kind'), 'warning');
  const w = h.q('chat-receipt-warning')!;
  assert.equal(w.textContent, warn.warnings[0]);
  assert.equal(w.querySelector('b'), null, 'text, never HTML');
  const details = h.q('chat-receipt-line')!.parentElement as HTMLDetailsElement;
  details.open = true;
  h.app.handle({ type: 'entryUpdated', entry: reply('a1', 'hi', { receipt: warn, durationMs: 1200 }) });
  assert.equal((h.q('chat-receipt-line')!.parentElement as HTMLDetailsElement).open, true);
});
