/**
 * The Status view's rows and the status bar's words, in both languages: the balance rows are label
 * and value as the core words them (right in Chinese, where a line reads "剩余：$3.75" with a
 * full-width colon), the status bar's "Relay: …" is one translated sentence, and no raw state
 * (error kind, surface id, proxy source) or internal reference reaches the user.
 */
import { test, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  useTranslations,
  type EndpointInfo,
  type Quota,
  type RequestRecord,
  type Translations,
} from '../../src/gateway';
import { statusRows, type GatewayFacts, type StatusFacts, type StatusRow } from '../../src/host/status/statusRows';
import { relayText, statusBarWords } from '../../src/host/status/statusBarWords';

const root = resolve(__dirname, '../../..');
/** Every Chinese runtime string, as the build merges l10n/zh-cn/*.json into one bundle. */
const chinese = Object.assign(
  {},
  ...readdirSync(join(root, 'l10n/zh-cn'))
    .filter((f) => f.endsWith('.json'))
    .map((f) => JSON.parse(readFileSync(join(root, 'l10n/zh-cn', f), 'utf8')) as Translations),
) as Translations;

afterEach(() => useTranslations(undefined));

const now = Date.parse('2026-11-24T10:00:00Z');
const quota: Quota = {
  source: 'usage-token',
  unlimited: false,
  remaining: 7.5,
  used: 2.5,
  granted: 10,
  unit: 'USD',
  expiresAt: '2027-01-31T00:00:00Z',
  modelLimits: ['gpt-4o-mini'],
};
const endpoints: EndpointInfo = {
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
const record: RequestRecord = {
  time: '2026-11-24T09:59:00Z',
  surface: 'native',
  capability: 'chat',
  host: 'gw.example.com',
  method: 'POST',
  path: '/v1/messages',
  model: 'claude-sonnet-4-5',
  status: undefined,
  errorKind: 'network',
  durationMs: 12,
  maskedToken: 'sk-abc...wxyz',
  requestId: undefined,
  attempt: 1,
  stream: true,
};
const gateway: GatewayFacts = {
  profile: { id: 'gw', name: 'gw.example.com' },
  endpoints,
  tokens: [{ name: 'production', masked: 'sk-abc...wxyz', active: true }],
  quota,
  last: record,
};
/** One gateway: a tree of one, its rows shown directly. */
const one = (g: Partial<GatewayFacts> = {}): StatusFacts => ({
  gateways: [{ ...gateway, ...g }],
  activeId: 'gw',
  warnBelow: 1,
  now,
  modelCount: 12,
  proxy: { source: 'environment', display: 'http://proxy.corp:3128', noProxy: undefined, strictSSL: true },
});
const facts = one();
/** The status bar's facts: the active token and balance, as the bar reads them. */
const barFacts = { tokenName: 'production', masked: 'sk-abc...wxyz', quota, warnBelow: 1, now, last: record };

/** A row by its own id (a gateway's rows are named under its node: "gateway:gw:active/balance"). */
const byId = (rows: StatusRow[], id: string) => rows.find((r) => r.id === id || r.id.endsWith(`/${id}`));
const balance = (rows: StatusRow[]) => byId(rows, 'balance');
const figures = (rows: StatusRow[]) => balance(rows)?.children?.map((c) => [c.label, c.description]);
const allText = (rows: StatusRow[]): string =>
  rows.map((r) => [r.label, r.description, r.tooltip, allText(r.children ?? [])].join('\n')).join('\n');

test('the balance rows are label and value (English)', () => {
  const rows = statusRows(facts);
  assert.equal(balance(rows)?.description, '$7.50');
  assert.deepEqual(figures(rows), [
    ['Remaining', '$7.50'],
    ['Used', '$2.50'],
    ['Granted', '$10.00'],
    ['Expires', '2027-01-31'],
    ['Limited to models', 'gpt-4o-mini'],
  ]);
});

test('the balance rows are label and value in Chinese too (the full-width colon is not a separator to parse)', () => {
  useTranslations(chinese);
  const rows = statusRows(facts);
  assert.equal(balance(rows)?.label, '余额');
  assert.deepEqual(figures(rows), [
    ['剩余', '$7.50'],
    ['已用', '$2.50'],
    ['总额度', '$10.00'],
    ['过期时间', '2027-01-31'],
    ['仅限模型', 'gpt-4o-mini'],
  ]);
  assert.match(String(balance(rows)?.tooltip), /^剩余：\$7\.50\n已用：\$2\.50/);
});

test('the status bar says "Relay: …" as one translated sentence', () => {
  const base = { ...barFacts, base: endpoints.base };
  assert.equal(statusBarWords({ ...base, last: undefined }).text, '$(pass) Relay: production · $7.50');
  assert.equal(relayText(undefined), 'Relay: no token');
  useTranslations(chinese);
  assert.equal(statusBarWords({ ...base, last: undefined }).text, '$(pass) Relay：production · $7.50');
  assert.equal(statusBarWords({ ...base, tokenName: undefined, masked: undefined }).text, '$(warning) Relay：无令牌');
  const failed = statusBarWords(base);
  assert.equal(failed.text.startsWith('$(error)'), true);
  assert.equal(failed.look, 'statusBarItem.warningBackground');
  assert.ok(
    failed.tooltip.some((l) => l.includes('无法连接')),
    failed.tooltip.join('\n'),
  );
});

test('no raw state reaches the view: error kinds, surfaces and proxy sources are words', () => {
  const rows = statusRows(facts);
  const last = byId(rows, 'last');
  assert.equal(last?.description, 'Native surface, claude-sonnet-4-5 → no connection in 12 ms (gw.example.com)');
  assert.equal(byId(rows, 'proxy')?.description, 'http://proxy.corp:3128 (from the environment)');
  const text = allText(rows);
  for (const raw of ['network', 'errorKind', '(spec', 'undefined'])
    assert.ok(!text.includes(raw), `"${raw}" in:\n${text}`);
  useTranslations(chinese);
  const zh = statusRows(facts);
  assert.equal(byId(zh, 'last')?.description, '原生接口，claude-sonnet-4-5 → 无法连接，用时 12 ms（gw.example.com）');
  assert.equal(byId(zh, 'proxy')?.description, 'http://proxy.corp:3128（来自环境变量）');
});

test('nothing while neither a base URL nor a token is set (the welcome view shows)', () => {
  assert.deepEqual(statusRows(one({ endpoints: { ...endpoints, base: undefined }, tokens: [] })), []);
  const noToken = statusRows(one({ tokens: [] }));
  assert.equal(balance(noToken), undefined, 'no balance without a token');
  assert.equal(byId(noToken, 'tokens')?.command?.command, 'modelRelay.addToken');
  // A token stored before the base URL: the endpoint asks for it, the token is there.
  const noBaseEndpoints = { ...endpoints, base: undefined };
  const noBase = statusRows(one({ endpoints: noBaseEndpoints }));
  assert.equal(byId(noBase, 'endpoint')?.command?.command, 'modelRelay.configureBaseUrl');
  assert.match(String(byId(noBase, 'endpoint')?.description), /not configured/);
  // That gateway has no name yet: another stored token is one click away all the same.
  const tokens = [...gateway.tokens, { name: 'test', masked: 'sk-def...1234', active: false }];
  const unnamed = statusRows(one({ profile: { id: 'gw', name: '' }, endpoints: noBaseEndpoints, tokens }));
  const other = byId(unnamed, 'tokens')?.children?.[1];
  assert.deepEqual(
    [other?.label, other?.tooltip, other?.command?.command, other?.command?.arguments],
    ['test', 'Click to use this token.', 'modelRelay.useGatewayToken', ['gw', 'test']],
  );
});

test("the token's effective group is a row under the tokens where the usage log told it, none where it did not", () => {
  assert.equal(byId(statusRows(facts), 'group'), undefined);
  const rows = statusRows(one({ group: 'vip' }));
  const ids = rows.map((r) => r.id.split('/').pop());
  assert.equal(ids.indexOf('group'), ids.indexOf('tokens') + 1);
  assert.equal(byId(rows, 'group')?.description, 'vip');
  useTranslations(chinese);
  assert.equal(byId(statusRows(one({ group: 'vip' })), 'group')?.label, '分组');
});
