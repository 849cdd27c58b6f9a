/**
 * The gateways from the settings: today's base URL, backups, headers, surface and models form the
 * gateway `default`, listed first while a base URL is set; `modelRelay.gateways` follows; an entry
 * with the id `default` replaces the old settings (the entry wins, and the log says so once).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  gatewayList,
  legacyGateway,
  namedGatewayIds,
  ProblemsOnce,
  settingsFor,
  type LegacyGatewaySettings,
} from '../../src/host/gateways/gatewayList';
import { parseSettings, relaySettings, type SettingKey } from '../../src/host/gateways/settingsSchema';

const none = { chat: '', native: '', image: '', imageEdit: '', video: '', completion: '' };
const old: LegacyGatewaySettings = {
  baseUrl: 'https://api.relay.example.com',
  backupUrls: ['https://backup.relay.example.com'],
  extraHeaders: { 'X-Team': 'blue' },
  defaultSurface: 'native',
  models: { ...none, chat: 'gpt-4o' },
};
const b = { id: 'b', name: 'Gateway B', baseUrl: 'https://b.example.net', models: { chat: 'claude-x' } };

test("today's settings are the gateway `default`, named after its host, listed first", () => {
  const list = gatewayList(old, [b]);
  assert.deepEqual(
    list.gateways.map((g) => g.id),
    ['default', 'b'],
  );
  assert.deepEqual(list.gateways[0], {
    id: 'default',
    name: 'relay.example.com',
    baseUrl: 'https://api.relay.example.com',
    backupUrls: ['https://backup.relay.example.com'],
    extraHeaders: { 'X-Team': 'blue' },
    defaultSurface: 'native',
    models: { chat: 'gpt-4o' },
  });
  assert.deepEqual(list.problems, []);
});

test('no base URL: no `default` gateway, only the listed ones', () => {
  assert.equal(legacyGateway({ ...old, baseUrl: '  ' }), undefined);
  assert.deepEqual(
    gatewayList({ ...old, baseUrl: '' }, [b]).gateways.map((g) => g.id),
    ['b'],
  );
  assert.deepEqual(gatewayList({ ...old, baseUrl: '' }, undefined).gateways, []);
});

test('an entry with the id `default` replaces the old settings, and says so', () => {
  const mine = { id: 'default', name: 'Mine', baseUrl: 'https://mine.example.org' };
  const list = gatewayList(old, [b, mine]);
  assert.deepEqual(
    list.gateways.map((g) => [g.id, g.baseUrl]),
    [
      ['b', 'https://b.example.net'],
      ['default', 'https://mine.example.org'],
    ],
  );
  assert.equal(list.problems.length, 1);
  assert.match(list.problems[0], /modelRelay\.baseUrl is not used/);
});

test('a bad entry is dropped with a problem, the others kept; a header value is never in a problem', () => {
  const list = gatewayList(old, [{ id: 'x y', name: 'bad', baseUrl: 'https://x', extraHeaders: { A: 'secret-v' } }, b]);
  assert.deepEqual(
    list.gateways.map((g) => g.id),
    ['default', 'b'],
  );
  assert.equal(list.problems.length, 1);
  assert.doesNotMatch(list.problems[0], /secret-v/);
});

test('the settings as read: the gateways and fallbacks; the rest of the settings as before', () => {
  const values: Partial<Record<SettingKey, unknown>> = {
    baseUrl: 'https://api.relay.example.com',
    gateways: [b, { id: 'b', name: 'again', baseUrl: 'https://c.example.net' }],
    fallbacks: { 'gpt-4o': [{ gateway: 'b', model: 'gpt-4o' }] },
  };
  const s = relaySettings(parseSettings((k) => values[k]));
  assert.deepEqual(
    s.gateways.map((g) => g.id),
    ['default', 'b'],
  );
  assert.deepEqual(s.fallbacks, { 'gpt-4o': [{ gateway: 'b', model: 'gpt-4o' }] });
  assert.equal(s.gatewayProblems.length, 1, 'the second "b"');
  const bad = relaySettings(parseSettings((k) => (k === 'fallbacks' ? { m: 'no' } : k === 'gateways' ? 7 : undefined)));
  assert.deepEqual(bad.fallbacks, {});
  assert.deepEqual(bad.gateways, []);
  assert.equal(bad.gatewayProblems.length, 1, 'the fallbacks (a gateways value of the wrong type is the default)');
});

test("settingsFor: a gateway's own address, backups, headers and models; never another gateway's headers", () => {
  const s = settingsFor(old, b);
  assert.equal(s.baseUrl, 'https://b.example.net');
  assert.deepEqual(s.backupUrls, []);
  assert.deepEqual(s.extraHeaders, {}, "the old gateway's headers stay with it");
  assert.deepEqual(s.models, { ...none, chat: 'claude-x' });
  assert.equal(s.defaultSurface, 'native', 'a preference, not a property of the old gateway');
  assert.equal(settingsFor(old, undefined), old);
  const d = legacyGateway(old);
  assert.deepEqual(settingsFor(old, d), old, 'the default gateway gives back the old settings');
});

test('problems are told once per change', () => {
  const told: string[] = [];
  const once = new ProblemsOnce((p) => told.push(p));
  once.report(['a', 'b']);
  once.report(['a', 'b']);
  assert.deepEqual(told, ['a', 'b']);
  once.report([]);
  once.report(['a']);
  assert.deepEqual(told, ['a', 'b', 'a']);
});

test('the ids the gateways setting names, read or not (a gateway being edited keeps its tokens)', () => {
  assert.deepEqual(namedGatewayIds(undefined), []);
  assert.deepEqual(namedGatewayIds([b, { id: 'half', name: 'typing…', baseUrl: '' }, { name: 'no id' }, 7]), [
    'b',
    'half',
  ]);
  assert.equal(namedGatewayIds({ id: 'b' }), null, 'not a list: which gateways it names is not known');
});
