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
  linkParam,
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
    name: 'Team relay · 团队 & co',
    baseUrl: 'https://relay.example.com',
    backupUrls: ['https://b1.example.com', 'http://10.0.0.2:3000'],
    extraHeaders: { 'X-Team': 'blue green', 'X-Route': 'a:b&c=d+e%20f' },
  };
  const { uri, leftOut } = encodeGatewayLink(PREFIX, g);
  assert.deepEqual(leftOut, []);
  assert.ok(uri.startsWith(`${PREFIX}/addGateway?gateway=`));
  assert.deepEqual(decodeGatewayLink(query(uri)), { ok: true, gateway: g });
  // VS Code hands the handler the query percent-decoded: the link reads the same either way
  assert.deepEqual(decodeGatewayLink(decodeURIComponent(query(uri))), { ok: true, gateway: g });
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
    linkParam({ baseUrl: 'https://r.example.com', token: TOKEN }),
    linkParam({ baseUrl: 'https://r.example.com', apiKey: TOKEN }),
    linkParam({ baseUrl: 'https://r.example.com', headers: { Authorization: `Bearer ${TOKEN}` } }),
    linkParam({ baseUrl: 'https://r.example.com', headers: { 'X-Key': TOKEN } }),
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
    const r1 = decodeGatewayLink(linkParam({ baseUrl: bad }));
    assert.equal(r1.ok, false, bad);
    const r2 = decodeGatewayLink(linkParam({ baseUrl: 'https://ok.example.com', backupUrls: [bad] }));
    assert.equal(r2.ok, false, `backup ${bad}`);
  }
  assert.equal(decodeGatewayLink(linkParam({ name: 'x' })).ok, false, 'no base URL');
  assert.equal(decodeGatewayLink('name=x').ok, false, 'no payload');
  assert.equal(decodeGatewayLink('gateway=not-json').ok, false, 'a damaged payload');
  assert.equal(decodeGatewayLink(linkParam(['https://r.example.com'])).ok, false, 'not an object');
});

test('opening refuses oversize input unread; too many backups or headers; a malformed header', () => {
  const big = linkParam({ baseUrl: 'https://r.example.com', name: 'x'.repeat(MAX_LINK_QUERY) });
  const r = decodeGatewayLink(big);
  assert.equal(r.ok, false);
  assert.match(!r.ok ? r.problem : '', /longer than/);
  const backupUrls = Array.from({ length: 11 }, (_, i) => `https://b${i}.example.com`);
  assert.equal(decodeGatewayLink(linkParam({ baseUrl: 'https://r.example.com', backupUrls })).ok, false);
  const headers = Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`X-H${i}`, 'v']));
  assert.equal(decodeGatewayLink(linkParam({ baseUrl: 'https://r.example.com', headers })).ok, false);
  assert.equal(decodeGatewayLink(linkParam({ baseUrl: 'https://r.example.com', headers: { 'a b': 'v' } })).ok, false);
  assert.equal(decodeGatewayLink(linkParam({ baseUrl: 'https://r.example.com', headers: { A: 5 } })).ok, false);
});

test('a link without a name gets one from its host', () => {
  const r = decodeGatewayLink(linkParam({ baseUrl: 'https://api.relay.example.com' }));
  assert.deepEqual(r, { ok: true, gateway: { name: 'relay.example.com', baseUrl: 'https://api.relay.example.com' } });
});
