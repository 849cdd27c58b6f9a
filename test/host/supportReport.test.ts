/**
 * Copy Support Report's builder (src/host/support/supportReport.ts): what it holds (versions, the
 * gateway's address, the last failing requests with whether the gateway logged them, the error and the
 * diagnosis), and what it never holds, planted everywhere a careless builder would copy it from: a
 * token, a bare key without `sk-`, `user:pass@` and `?key=` in URLs, and the user's prompt.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { DiagnosisReport } from '../../src/gateway';
import { arrivalSource } from '../../src/host/usage/arrivals';
import { diagnoseBody } from '../../src/host/diagnose/diagnoseHtml';
import { oneGateway } from '../fakes/diagnosis';
import { parseDiagnoseMessage } from '../../src/host/panelMessages';
import {
  failingRequests,
  knownSecrets,
  supportReport,
  type SupportReportInput,
} from '../../src/host/support/supportReport';
import { FakeUsageLog, NOW, rec, usageRecord } from '../fakes/usageLog';

const TOKEN = 'sk-Zq8LmW3vXc7Rt2Yp9Kd4Hs6Jf1Gb5Na0';
const BARE = 'f3a9c1e7b2d84a6f9e0c5b7d1a3e8f24';
const PROMPT = 'Draft the secret merger letter to ACME about Project Nightingale';

function diagnosis(): DiagnosisReport {
  return {
    startedAt: new Date(NOW - 5000).toISOString(),
    durationMs: 900,
    baseUrl: `https://admin:hunter2@gw.example.com/v1?key=${BARE}`,
    base: 'https://gw.example.com',
    backups: [],
    usedBase: 'https://gw.example.com',
    maskedToken: 'sk-Zq8...5Na0',
    tokenName: 'production',
    proxy: 'none',
    summary: { pass: 5, warn: 1, fail: 1, skipped: 0 },
    ok: false,
    checks: [
      { id: 'token', title: 'Token', result: 'pass', durationMs: 1, cause: 'ok', fix: '' },
      {
        id: 'generate-chat',
        title: 'Generation',
        result: 'fail',
        httpStatus: 500,
        durationMs: 10,
        requestId: 'diag-1',
        cause: `The gateway answered 500 for https://u:p@gw.example.com/v1/chat/completions?key=${BARE} with ${TOKEN}`,
        fix: 'Retry later.',
        details: [PROMPT],
      },
    ],
  };
}

function input(extra: Partial<SupportReportInput> = {}): SupportReportInput {
  return {
    extensionVersion: '1.4.0',
    vscodeVersion: '1.106.0 (code-server)',
    language: 'en',
    platform: 'linux x64',
    gateway: { name: 'Main', baseUrl: `https://admin:hunter2@gw.example.com/v1?key=${BARE}#frag` },
    proxy: 'http://proxy.example.com:3128 (http.proxy)',
    records: [
      rec(0),
      rec(1, { status: 500, errorKind: 'server_error', requestId: 'req-1' }),
      rec(2, { status: 403, errorKind: 'forbidden', requestId: 'req-2', host: `gw.example.com` }),
      rec(3, { status: undefined, errorKind: 'aborted' }),
      rec(4, { status: 502, errorKind: 'server_error', requestId: undefined, model: 'gpt-image-1' }),
      rec(5, { capability: 'account', method: 'GET', status: 429 }),
    ],
    error: {
      kind: 'bad_request',
      status: 400,
      message: `HTTP 400: context too long: ${PROMPT}`,
      cause: `The gateway refused: ${PROMPT}`,
      fix: 'Shorten it.',
      gatewayMessage: `This model's maximum context length is exceeded: "${PROMPT}" key ${BARE}`,
      requestId: 'req-1',
      url: `https://admin:hunter2@gw.example.com/v1/chat/completions?key=${BARE}`,
      host: 'gw.example.com',
      surface: 'compatible',
      model: 'gpt-4o-mini',
      maskedToken: 'sk-Zq8...5Na0',
      billing: 'This billed call may have reached the gateway.',
      arrival: { state: 'arrived', text: 'The gateway logged this request: billed $0.04 (12 in / 345 out tokens).' },
    },
    errorAt: NOW - 30_000,
    diagnosis: diagnosis(),
    secrets: [TOKEN, BARE],
    now: NOW,
    ...extra,
  };
}

test('the support report holds no token, no bare key, no URL credentials or query, and no prompt text', async () => {
  const usage = new FakeUsageLog([usageRecord('req-1')], () => NOW);
  const text = await supportReport(
    input(),
    arrivalSource(() => usage),
  );
  for (const secret of [
    TOKEN,
    TOKEN.slice(3),
    BARE,
    'hunter2',
    'admin:',
    'u:p@',
    '?key=',
    '#frag',
    PROMPT,
    'Nightingale',
  ])
    assert.ok(!text.includes(secret), `"${secret}" must not be in the report:\n${text}`);
  assert.equal(usage.reads, 1, 'the failing requests are looked up with one read');
});

test('the support report says what an operator needs: versions, gateway, the failing requests and whether they arrived', async () => {
  const usage = new FakeUsageLog([usageRecord('req-1')], () => NOW);
  const text = await supportReport(
    input(),
    arrivalSource(() => usage),
  );
  assert.match(text, /^# Model Relay support report/);
  assert.match(text, /- Model Relay: 1\.4\.0/);
  assert.match(text, /- VS Code: 1\.106\.0 \(code-server\)/);
  assert.match(text, /- Gateway: Main \(https:\/\/gw\.example\.com\/v1\)/);
  const rows = text.split('\n').filter((l) => l.startsWith('| 2023'));
  assert.equal(rows.length, 3, 'the failing requests, not the successes, the stopped one or the balance read');
  assert.match(
    rows[0]!,
    /gpt-image-1 \| 502 server_error \| — \| unknown \(the gateway gave this request no request id\) \|$/,
  );
  assert.match(rows[1]!, /403 forbidden \| req-2 \| no record \|$/);
  assert.match(rows[2]!, /500 server_error \| req-1 \| arrived: billed \$0\.04 \(12 in \/ 345 out tokens\) \|$/);
  assert.match(text, /- Request id: req-1/);
  assert.match(text, /- Logged by the gateway: The gateway logged this request: billed \$0\.04/);
  assert.match(text, /- Billed call: yes, it may have been charged/);
  assert.match(text, /Run at 2023-11-14 22:14:55 UTC: 1 failed, 1 warnings, 5 passed/);
  assert.match(
    text,
    /- Failed: Generation \(HTTP 500\) \[diag-1\] — The gateway answered 500 for https:\/\/\*\*\*@gw\.example\.com\/v1\/chat\/completions with sk-Zq8/,
  );
});

test('without a diagnosis, failures or a usage log the report says so', async () => {
  const text = await supportReport(input({ diagnosis: undefined, error: undefined, records: [rec(0)] }), undefined);
  assert.match(text, /No failing request in the request log\./);
  assert.match(text, /No diagnosis was run in this window\./);
  assert.ok(!text.includes('The error reported'));
});

test('a stored record without a surface (an older version, a client call without one) shows a dash, not a crash', async () => {
  const old = { ...rec(3, { status: 503, errorKind: 'server_error' }), surface: undefined } as unknown as ReturnType<
    typeof rec
  >;
  const text = await supportReport(input({ diagnosis: undefined, error: undefined, records: [old] }), undefined);
  assert.match(text, /\| — \| gpt-4o-mini|\| — \|/);
});

test('a usage log that does not answer in time leaves the report unknown, not waiting', async () => {
  const never = () => new Promise<never>(() => undefined);
  const text = await supportReport(input(), never, 20);
  assert.match(text, /\| req-1 \| unknown \(the usage log could not be read\) \|/);
});

test('failing requests are the newest ten, and every gateway token is known to the redaction', async () => {
  const many = Array.from({ length: 15 }, (_, i) => rec(i, { status: 500, errorKind: 'server_error' }));
  assert.deepEqual(
    failingRequests(many).map((r) => r.requestId),
    Array.from({ length: 10 }, (_, i) => `req-${14 - i}`),
  );
  const stores: Record<string, Record<string, string>> = { a: { one: TOKEN }, b: { two: BARE, gone: '' } };
  const secrets = await knownSecrets(['a', 'b'], (id) => ({
    names: () => Object.keys(stores[id]!),
    value: async (n) => stores[id]![n] || undefined,
  }));
  assert.deepEqual(secrets, [TOKEN, BARE]);
});

test('the Diagnose panel offers Copy Support Report, and its message passes the panel schema', () => {
  const html = diagnoseBody(oneGateway(diagnosis()), { activeGateway: true });
  assert.match(html, /<button data-testid="support-report" data-cmd="supportReport">/);
  assert.match(html, /Copy Support Report/);
  assert.deepEqual(parseDiagnoseMessage({ type: 'supportReport' }), { type: 'supportReport' });
});
