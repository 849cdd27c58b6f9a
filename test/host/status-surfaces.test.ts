/** The Status view's surface rows: three surfaces, the last request on the responses surface, what the gateway's refusals taught. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { EndpointInfo, RequestRecord } from '../../src/gateway';
import { lastRequestRow, surfaceRows } from '../../src/host/status/statusRows';

const ep: EndpointInfo = {
  base: 'https://gw.example.com',
  verbatim: false,
  compatibleBase: 'https://gw.example.com/v1',
  nativeBase: 'https://gw.example.com',
  nativeMessagesUrl: 'https://gw.example.com/v1/messages',
  responsesUrl: 'https://gw.example.com/v1/responses',
  findings: [],
  backups: [],
  activeBase: 'https://gw.example.com',
  activeIsBackup: false,
};

test('three surface rows, the responses one naming /v1/responses; no learnt row until a refusal taught one', () => {
  const rows = surfaceRows(ep);
  assert.deepEqual(
    rows.map((r) => r.id),
    ['compatible', 'native', 'responses'],
  );
  const responses = rows.find((r) => r.id === 'responses')!;
  assert.equal(responses.label, 'Responses surface');
  assert.match(responses.description ?? '', /https:\/\/gw\.example\.com\/v1\/responses$/);
  assert.deepEqual(responses.command?.arguments, ['https://gw.example.com/v1']);
});

test('the learnt surfaces are one row, words for each model (the first three, then how many more)', () => {
  const learnt = ['a', 'b', 'c', 'd'].map((m) => ({ model: `gpt-5.5-${m}`, surface: 'responses' as const }));
  const row = surfaceRows(ep, learnt).find((r) => r.id === 'learnt')!;
  assert.equal(row.label, 'Learnt surfaces');
  assert.equal(row.description, 'gpt-5.5-a → responses, gpt-5.5-b → responses, gpt-5.5-c → responses and 1 more');
  assert.match(row.tooltip ?? '', /gpt-5\.5-d → responses/);
});

test('the last request on the responses surface is said in words', () => {
  const r = {
    surface: 'responses',
    model: 'gpt-5.5-codex',
    path: '/v1/responses',
    status: 200,
    durationMs: 12,
    host: 'gw.example.com',
    method: 'POST',
    maskedToken: 'sk-abc...wxyz',
  } as RequestRecord;
  assert.equal(lastRequestRow(r).description, 'Responses surface, gpt-5.5-codex → 200 in 12 ms (gw.example.com)');
});
