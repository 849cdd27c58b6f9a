/**
 * Copy Gateway Link and the URI handler's reading of it: a round trip keeps name, address, backups
 * and headers; a link never carries a credential (left out when copying, refused when opening); only
 * http(s) addresses; a bounded size.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  decodeGatewayLink,
  encodeGatewayLink,
  GATEWAY_LINK_PATH,
  MAX_LINK_QUERY,
} from '../../src/host/gateways/gatewayLink';

const PREFIX = 'vscode://model-relay.model-relay';
const TOKEN = 'sk-abcdefghijklmnopqrstuvwxyz0123456789ABCD';
const query = (uri: string) => {
  const u = new URL(uri);
  assert.equal(u.protocol, 'vscode:');
  assert.equal(u.pathname, GATEWAY_LINK_PATH);
  return u.search.slice(1);
};

test('round trip: name, base URL, backups and headers come back as they went', () => {
  const g = {
    name: 'Team relay · 团队',
    baseUrl: 'https://relay.example.com',
    backupUrls: ['https://b1.example.com', 'http://10.0.0.2:3000'],
    extraHeaders: { 'X-Team': 'blue green', 'X-Route': 'a:b' },
  };
  const { uri, leftOut } = encodeGatewayLink(PREFIX, g);
  assert.deepEqual(leftOut, []);
  assert.ok(uri.startsWith(`${PREFIX}/addGateway?`));
  assert.deepEqual(decodeGatewayLink(query(uri)), { ok: true, gateway: g });
});

test('copying leaves out every header that is or looks like a credential, and names them', () => {
  const { uri, leftOut } = encodeGatewayLink(PREFIX, {
    name: 'x',
    baseUrl: 'https://relay.example.com',
    extraHeaders: {
      Authorization: 'Bearer abc',
      'x-api-key': 'short',
      'X-Relay-Key': TOKEN,
      'X-Opaque': 'a1B2c3D4e5F6g7H8i9J0k1L2m3',
      'X-Team': 'blue',
    },
  });
  assert.deepEqual(leftOut, ['Authorization', 'x-api-key', 'X-Relay-Key', 'X-Opaque']);
  assert.doesNotMatch(uri, /sk-|Bearer|short|a1B2c3/);
  const back = decodeGatewayLink(query(uri));
  assert.ok(back.ok);
  assert.deepEqual(back.ok && back.gateway.extraHeaders, { 'X-Team': 'blue' });
});

test('opening refuses a link that carries a token, in a parameter or a header', () => {
  for (const q of [
    `baseUrl=https://r.example.com&token=${TOKEN}`,
    `baseUrl=https://r.example.com&header=${encodeURIComponent(`Authorization: Bearer ${TOKEN}`)}`,
    `baseUrl=https://r.example.com&header=${encodeURIComponent(`X-Key: ${TOKEN}`)}`,
  ]) {
    const r = decodeGatewayLink(q);
    assert.equal(r.ok, false, q);
    assert.doesNotMatch(JSON.stringify(r), new RegExp(TOKEN), 'the refusal does not repeat the token');
  }
});

test('opening refuses anything but http(s) addresses, for the base URL and every backup', () => {
  for (const bad of [
    'javascript:alert(1)',
    'file:///etc/passwd',
    'ftp://relay.example.com',
    'data:text/html,x',
    'relay',
  ]) {
    const r1 = decodeGatewayLink(`baseUrl=${encodeURIComponent(bad)}`);
    assert.equal(r1.ok, false, bad);
    const r2 = decodeGatewayLink(`baseUrl=https://ok.example.com&backupUrl=${encodeURIComponent(bad)}`);
    assert.equal(r2.ok, false, `backup ${bad}`);
  }
  assert.equal(decodeGatewayLink('name=x').ok, false, 'no base URL');
});

test('opening refuses oversize input unread; too many backups or headers; a malformed header', () => {
  const big = `baseUrl=https://r.example.com&name=${'x'.repeat(MAX_LINK_QUERY)}`;
  const r = decodeGatewayLink(big);
  assert.equal(r.ok, false);
  assert.match(!r.ok ? r.problem : '', /longer than/);
  const backups = Array.from({ length: 11 }, (_, i) => `backupUrl=https://b${i}.example.com`).join('&');
  assert.equal(decodeGatewayLink(`baseUrl=https://r.example.com&${backups}`).ok, false);
  const headers = Array.from({ length: 17 }, (_, i) => `header=X-H${i}%3A%20v`).join('&');
  assert.equal(decodeGatewayLink(`baseUrl=https://r.example.com&${headers}`).ok, false);
  assert.equal(decodeGatewayLink('baseUrl=https://r.example.com&header=novalue').ok, false);
});

test('a link without a name gets one from its host', () => {
  const r = decodeGatewayLink('baseUrl=https%3A%2F%2Fapi.relay.example.com');
  assert.deepEqual(r, { ok: true, gateway: { name: 'relay.example.com', baseUrl: 'https://api.relay.example.com' } });
});
