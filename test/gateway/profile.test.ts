import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gatewayIdFor, parseFallbacks, parseGateways, suggestGatewayName } from '../../src/gateway';

test('gateway profiles: valid entries are kept in order, bad ones dropped with a problem naming them', () => {
  const { gateways, problems } = parseGateways([
    { id: 'cheap', name: 'Cheap relay', baseUrl: 'https://cheap.example.com', backupUrls: ['https://b.example.com'] },
    { id: 'cheap', name: 'Again', baseUrl: 'https://x.example.com' },
    { id: 'has/slash', name: 'Bad id', baseUrl: 'https://y.example.com' },
    { id: 'nourl', name: 'No URL', baseUrl: 'ftp://' },
    { id: 'hdr', name: 'Header', baseUrl: 'https://z.example.com', extraHeaders: { 'X-Secret': 42 } },
    { id: 'work', name: 'Work', baseUrl: 'https://relay.corp.example', models: { chat: 'gpt-4o' } },
  ]);
  assert.deepEqual(
    gateways.map((g) => g.id),
    ['cheap', 'work'],
  );
  assert.equal(problems.length, 4);
  assert.match(problems[0]!, /gateway 2 \("cheap"\).*already has the id "cheap"/);
  assert.match(problems[1]!, /gateway 3 was ignored: id/);
  assert.match(problems[2]!, /gateway 4 \("nourl"\).*base URL/);
  assert.match(problems[3]!, /gateway 5 \("hdr"\).*extraHeaders\.X-Secret/);
  assert.ok(!problems.join(' ').includes('42'), 'a header value is never echoed');
});

test('gateway profiles: not a list, nothing, and more than the cap', () => {
  assert.deepEqual(parseGateways(undefined), { gateways: [], problems: [] });
  assert.equal(parseGateways({ id: 'a' }).problems.length, 1);
  const many = Array.from({ length: 40 }, (_, i) => ({
    id: `g${i}`,
    name: `G${i}`,
    baseUrl: `https://g${i}.example.com`,
  }));
  const r = parseGateways(many);
  assert.equal(r.gateways.length, 32);
  assert.equal(r.problems.length, 8);
});

test('fallbacks: a valid map is read; an invalid one is none, with the reason', () => {
  assert.deepEqual(parseFallbacks({ 'gpt-4o': [{ gateway: 'work', model: 'gpt-4o' }] }).fallbacks, {
    'gpt-4o': [{ gateway: 'work', model: 'gpt-4o' }],
  });
  const bad = parseFallbacks({ 'gpt-4o': [{ gateway: 'work' }] });
  assert.deepEqual(bad.fallbacks, {});
  assert.match(bad.problem ?? '', /gpt-4o\.0\.model/);
});

test('a new gateway is named after its host and gets a free id', () => {
  assert.equal(suggestGatewayName('https://api.relay.example.com/v1'), 'relay.example.com');
  assert.equal(suggestGatewayName('not a url'), 'Gateway');
  assert.equal(gatewayIdFor('relay.example.com', []), 'relay-example-com');
  assert.equal(gatewayIdFor('relay.example.com', ['relay-example-com']), 'relay-example-com-2');
  assert.equal(gatewayIdFor('中转', []), 'gateway');
});
