/**
 * Switching gateways, in words and edits: the status bar's `gateway · token · balance` (the short
 * "Relay: …" while there is one gateway), the Switch Gateway rows (each gateway with its active
 * token and balance, its tokens under it, the actions after them), and what Add / Rename / Remove
 * Gateway and Configure Base URL write to `modelRelay.gateways`.
 */
import { test, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { useTranslations, type GatewayProfile, type Quota, type Translations } from '../../src/gateway';
import { statusBarWords } from '../../src/host/status/statusBarWords';
import { gatewayPickRows } from '../../src/host/gateways/gatewayPick';
import {
  hasEntry,
  withGatewayAdded,
  withGatewayBaseUrl,
  withGatewayRemoved,
  withGatewayRenamed,
} from '../../src/host/gateways/gatewayEdits';
import { legacyGateway } from '../../src/host/gateways/gatewayList';

const root = resolve(__dirname, '../../..');
const chinese = Object.assign(
  {},
  ...readdirSync(join(root, 'l10n/zh-cn'))
    .filter((f) => f.endsWith('.json'))
    .map((f) => JSON.parse(readFileSync(join(root, 'l10n/zh-cn', f), 'utf8')) as Translations),
) as Translations;
afterEach(() => useTranslations(undefined));

const quota: Quota = {
  source: 'usage-token',
  unlimited: false,
  remaining: 7.5,
  used: 2.5,
  granted: 10,
  unit: 'USD',
  expiresAt: null,
};
const bar = {
  base: 'https://relay.example.com',
  tokenName: 'production',
  masked: 'sk-abc...wxyz',
  quota,
  warnBelow: 1,
  now: Date.parse('2026-11-24T10:00:00Z'),
  last: undefined,
};

test('the status bar: gateway · token · balance with several gateways; today\'s "Relay: …" with one', () => {
  assert.equal(
    statusBarWords({ ...bar, gateway: 'relay.example.com', several: true }).text,
    '$(pass) relay.example.com · production · $7.50',
  );
  assert.equal(
    statusBarWords({ ...bar, gateway: 'Work', several: true, quota: undefined }).text,
    '$(pass) Work · production',
  );
  assert.equal(
    statusBarWords({ ...bar, gateway: 'Work', several: true, tokenName: undefined, masked: undefined }).text,
    '$(warning) Work · no token',
  );
  assert.equal(statusBarWords({ ...bar, gateway: 'Work', several: false }).text, '$(pass) Relay: production · $7.50');
  const tip = statusBarWords({ ...bar, gateway: 'Work', several: true }).tooltip.join('\n');
  assert.match(tip, /Gateway: Work/);
  useTranslations(chinese);
  assert.equal(
    statusBarWords({ ...bar, gateway: 'Work', several: true, tokenName: undefined, masked: undefined }).text,
    '$(warning) Work · 无令牌',
  );
  assert.match(statusBarWords({ ...bar, gateway: 'Work', several: true }).tooltip.join('\n'), /网关：Work/);
});

const gw = (id: string, name = id): GatewayProfile => ({ id, name, baseUrl: `https://${id}.example.com` });

test('Switch Gateway: a group per gateway with its active token and balance, its tokens under it, then the actions', () => {
  const rows = gatewayPickRows({
    gateways: [gw('default', 'Home'), gw('b', 'Work'), gw('c', 'Spare')],
    activeId: 'b',
    tokens: new Map([
      ['default', [{ name: 'production', masked: 'sk-aaa...1111', active: true }]],
      [
        'b',
        [
          { name: 'team', masked: 'sk-bbb...2222', active: false },
          { name: 'mine', masked: 'sk-ccc...3333', active: true },
        ],
      ],
    ]),
    balance: new Map([['b', '$7.50']]),
  });
  const shown = rows.map((r) =>
    r.kind === 'separator' ? `-- ${r.label}` : `${r.label} | ${'description' in r ? r.description : ''}`,
  );
  assert.deepEqual(shown, [
    '-- Home',
    '$(server) Home | production sk-aaa...1111',
    '-- Work',
    '$(check) Work | mine sk-ccc...3333 · $7.50',
    '$(key) team | sk-bbb...2222',
    '$(key) mine | sk-ccc...3333 · active',
    '-- Spare',
    '$(server) Spare | no token',
    '-- Actions',
    '$(add) Add Gateway… | ',
    '$(key) Add Token… | ',
    '$(edit) Rename Gateway… | ',
    '$(link) Copy Gateway Link | ',
    '$(trash) Remove Gateway… | ',
    '$(ellipsis) More Actions… | ',
  ]);
  const team = rows.find((r) => r.kind === 'token' && r.tokenName === 'team');
  assert.deepEqual(
    team && team.kind === 'token' && [team.gatewayId, team.tokenName],
    ['b', 'team'],
    'one pick: gateway and token',
  );
  assert.ok(!JSON.stringify(rows).includes('sk-bbbb'), 'only masked tokens');
});

test('Switch Gateway with no gateway offers to add one', () => {
  const rows = gatewayPickRows({ gateways: [], activeId: undefined, tokens: new Map(), balance: new Map() });
  assert.deepEqual(
    rows.filter((r) => r.kind === 'action').map((r) => r.kind === 'action' && r.action),
    ['addGateway', 'more'],
  );
});

test('the edits keep entries this version cannot read, and touch only the gateway named', () => {
  const odd = { id: 'odd', name: 'x', baseUrl: 'https://o.example.com', future: true };
  const raw = [odd, gw('b', 'Work')];
  assert.deepEqual(withGatewayAdded(raw, gw('c')), [odd, gw('b', 'Work'), gw('c')]);
  assert.deepEqual(withGatewayAdded(undefined, gw('c')), [gw('c')]);
  assert.deepEqual(withGatewayRenamed(raw, gw('b', 'Work'), 'Office'), [odd, gw('b', 'Office')]);
  assert.deepEqual(withGatewayBaseUrl(raw, 'b', 'https://new.example.com'), [
    odd,
    { ...gw('b', 'Work'), baseUrl: 'https://new.example.com' },
  ]);
  assert.deepEqual(withGatewayRemoved(raw, 'b'), [odd]);
  assert.ok(hasEntry(raw, 'odd') && !hasEntry(raw, 'default') && !hasEntry('nonsense', 'b'));
});

test('renaming the gateway made from the old settings writes an entry `default` with its values (which then wins)', () => {
  const old = legacyGateway({
    baseUrl: 'https://api.relay.example.com',
    backupUrls: [],
    extraHeaders: {},
    defaultSurface: 'compatible',
    models: { chat: 'gpt-4o', native: '', image: '', imageEdit: '', video: '' },
  });
  assert.ok(old);
  assert.deepEqual(withGatewayRenamed([gw('b')], old, 'Home'), [gw('b'), { ...old, name: 'Home' }]);
});
