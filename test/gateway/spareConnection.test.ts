/**
 * The warm spare connection (src/gateway/http/spareConnection.ts): opened ahead of a request through
 * the agent's own connector, handed over to the next request that needs a connection, never when a
 * free one exists, never through a proxy, closed when unused, when the server closes it first or when
 * the agent closes — and nothing is ever sent on it before the request. Real HTTP (and TLS) servers on
 * 127.0.0.1 count the connections.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { buildConnector, request } from 'undici';
import { createDispatcher, GatewayClient } from '../../src/gateway';
import { preconnect, SpareConnections, WarmAgent } from '../../src/gateway/http/spareConnection';
import { trustingAgent } from '../../src/gateway/http/trust';
import { startHttpsSimulator, type HttpsSimulator } from '../sim/tls';

interface Counted {
  url: string;
  server: http.Server;
  /** connections accepted, in order, with the bytes each had received when it closed or now */
  connections: Array<{ socket: Socket; bytesBeforeRequest: number; requests: number; closed: boolean }>;
  /** the local port of the connection each request came on */
  requestPorts: number[];
  close(): Promise<void>;
}

/** An HTTP server that answers `{"ok":true}` after `delayMs` and records its connections. */
async function countingServer(delayMs = 0): Promise<Counted> {
  const c: Counted = { url: '', server: http.createServer(), connections: [], requestPorts: [], close: async () => {} };
  c.server.on('connection', (socket: Socket) => {
    const entry = { socket, bytesBeforeRequest: 0, requests: 0, closed: false };
    c.connections.push(entry);
    socket.on('close', () => (entry.closed = true));
  });
  c.server.on('request', (req, res) => {
    const entry = c.connections.find((e) => e.socket === req.socket)!;
    entry.requests++;
    c.requestPorts.push(req.socket.remotePort!);
    req.resume();
    const t = setTimeout(() => res.end('{"ok":true}'), delayMs);
    res.on('close', () => clearTimeout(t));
  });
  await new Promise<void>((r) => c.server.listen(0, '127.0.0.1', r));
  c.url = `http://127.0.0.1:${(c.server.address() as AddressInfo).port}`;
  c.close = () =>
    new Promise<void>((r) => {
      c.server.closeAllConnections();
      c.server.close(() => r());
    });
  return c;
}

/** Waits (bounded) until `cond` holds. */
async function until(cond: () => boolean, what: string, ms = 2_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

async function get(url: string, dispatcher: WarmAgent | ReturnType<typeof createDispatcher>, signal?: AbortSignal) {
  const res = await request(url, { dispatcher, signal });
  return res.body.text();
}

let s: Counted;
before(async () => {
  s = await countingServer();
});
after(async () => {
  await s.close();
});

test('a spare opened ahead carries the next request; nothing is sent on it before', async () => {
  const agent = trustingAgent();
  try {
    const start = s.connections.length;
    preconnect(agent, s.url);
    await until(() => s.connections.length === start + 1, 'the spare connection');
    const spare = s.connections.at(-1)!;
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(spare.socket.bytesRead, 0, 'no byte before the request');
    assert.equal(await get(`${s.url}/a`, agent), '{"ok":true}');
    assert.equal(s.connections.length, start + 1, 'no second connection');
    assert.equal(spare.requests, 1, 'the request came on the spare');
    assert.deepEqual(agent.spares.counts, { prepared: 1, handedOver: 1, expired: 0 });
  } finally {
    await agent.close();
  }
});

test('no spare while the agent holds a free connection', async () => {
  const agent = trustingAgent();
  try {
    const start = s.connections.length;
    await get(`${s.url}/first`, agent);
    assert.equal(s.connections.length, start + 1);
    // undici counts the connection free once the response's tick is over
    const free = () => (agent.stats as Record<string, { free: number }>)[s.url]?.free ?? 0;
    await until(() => free() === 1, 'the connection to be free');
    preconnect(agent, s.url);
    await new Promise((r) => setTimeout(r, 30));
    assert.equal(s.connections.length, start + 1, 'the kept-alive connection is enough');
    assert.equal(agent.spares.counts.prepared, 0);
    await get(`${s.url}/second`, agent);
    assert.equal(s.connections.length, start + 1);
  } finally {
    await agent.close();
  }
});

test('one spare per origin however often it is asked for; closed unused after its time, not handed over then', async () => {
  const spares = new SpareConnections(buildConnector({}), 60);
  const start = s.connections.length;
  for (let i = 0; i < 5; i++) spares.prepare(new URL(s.url));
  assert.equal(spares.size, 1);
  await until(() => s.connections.length === start + 1, 'the spare');
  await until(() => s.connections[start].closed, 'the unused spare to close');
  assert.equal(spares.counts.expired, 1);
  assert.equal(spares.size, 0);
  // undici asks the connector: nothing spare to hand over, so a new connection
  const agent = new WarmAgent(spares.connector);
  try {
    await get(`${s.url}/after`, agent);
    assert.equal(s.connections.length, start + 2);
    assert.equal(spares.counts.handedOver, 0);
  } finally {
    await agent.close();
  }
});

test('typing through suggestions: after each aborted request the spare carries the next one, no other connection is made', async () => {
  const slow = await countingServer(200);
  const agent = trustingAgent();
  try {
    for (let i = 0; i < 6; i++) {
      // a suggestion in flight, superseded by a keystroke: its socket is closed with the abort
      const ac = new AbortController();
      const inFlight = get(`${slow.url}/typing-${i}`, agent, ac.signal).catch(() => 'aborted');
      await until(() => slow.connections.filter((c) => c.requests > 0).length === i + 1, `request ${i} to arrive`);
      ac.abort();
      assert.equal(await inFlight, 'aborted');
      // the engine asks for a connection while it waits for the next one
      preconnect(agent, slow.url);
      await until(() => slow.connections.length === i + 2, `the spare after abort ${i}`);
    }
    const origin = new URL(slow.url).origin;
    assert.ok(agent.stats[origin], 'the origin keeps its pool through the aborts');
    const done = await request(`${slow.url}/last`, { dispatcher: agent });
    assert.equal(await done.body.text(), '{"ok":true}');
    assert.equal(slow.connections.length, 7, 'one connection per request: the first, then each spare');
    assert.deepEqual(
      slow.connections.map((c) => c.requests),
      [1, 1, 1, 1, 1, 1, 1],
    );
    assert.deepEqual(agent.spares.counts, { prepared: 6, handedOver: 6, expired: 0 });
  } finally {
    await agent.close();
    await slow.close();
  }
});

test('a closed agent refuses new requests with a classified undici error, and its pools are closed', async () => {
  const agent = trustingAgent();
  const start = s.connections.length;
  assert.equal(await get(`${s.url}/before`, agent), '{"ok":true}');
  await agent.close();
  await until(() => s.connections[start].closed, 'the kept-alive connection to close with the agent');
  await assert.rejects(get(`${s.url}/after`, agent), { name: 'ClientClosedError' });
  const destroyed = trustingAgent();
  await destroyed.destroy();
  await assert.rejects(get(`${s.url}/after`, destroyed), { name: 'ClientDestroyedError' });
});

/** `connect` after `delayMs`, counting its calls (a handshake that takes its time). */
function slowConnector(delayMs: number, fail?: Error) {
  const real = buildConnector({});
  const c = {
    calls: 0,
    connect: ((opts, callback) => {
      c.calls++;
      setTimeout(() => (fail ? callback(fail, null) : real(opts, callback)), delayMs);
    }) as buildConnector.connector,
  };
  return c;
}

test('a request that needs a connection while the spare is still opening waits for it: one connection, not two', async () => {
  const slow = slowConnector(40);
  const agent = new WarmAgent(slow.connect);
  try {
    const start = s.connections.length;
    preconnect(agent, s.url);
    assert.equal(await get(`${s.url}/during-handshake`, agent), '{"ok":true}');
    assert.equal(slow.calls, 1, 'the spare’s connection only');
    assert.equal(s.connections.length, start + 1);
    assert.deepEqual(agent.spares.counts, { prepared: 1, handedOver: 1, expired: 0 });
  } finally {
    await agent.close();
  }
});

test('a spare that fails while a request waits for it gives the request its error, without a second attempt', async () => {
  const slow = slowConnector(40, Object.assign(new Error('connect ECONNREFUSED (test)'), { code: 'ECONNREFUSED' }));
  const agent = new WarmAgent(slow.connect);
  try {
    preconnect(agent, s.url);
    await assert.rejects(get(`${s.url}/refused`, agent), { code: 'ECONNREFUSED' });
    assert.equal(slow.calls, 1);
    assert.equal(agent.spares.counts.handedOver, 0);
  } finally {
    await agent.close();
  }
});

test('a spare dropped while a request waits for it: the request connects anew and succeeds', async () => {
  const slow = slowConnector(40);
  const agent = new WarmAgent(slow.connect);
  try {
    preconnect(agent, s.url);
    const answer = get(`${s.url}/after-drop`, agent);
    await until(() => slow.calls === 1, 'the spare to be opening');
    await new Promise((r) => setTimeout(r, 5)); // the request is waiting on it
    agent.spares.clear();
    assert.equal(await answer, '{"ok":true}');
    assert.equal(slow.calls, 2, 'the dropped spare, then the request’s own');
  } finally {
    await agent.close();
  }
});

test('a spare the server closed first is not handed over: the request connects anew and succeeds', async () => {
  const hangUp = await countingServer();
  hangUp.server.once('connection', (socket: Socket) => setTimeout(() => socket.destroy(), 5));
  const agent = trustingAgent();
  try {
    preconnect(agent, hangUp.url);
    await until(() => hangUp.connections[0]?.closed === true, 'the server to close the spare');
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(agent.spares.size, 0, 'dropped when it closed');
    assert.equal(await get(`${hangUp.url}/x`, agent), '{"ok":true}');
    assert.equal(hangUp.connections.length, 2);
    assert.equal(agent.spares.counts.handedOver, 0);
  } finally {
    await agent.close();
    await hangUp.close();
  }
});

test('closing the agent closes its spare; an idle spare does not keep the process alive', async () => {
  const agent = trustingAgent();
  const start = s.connections.length;
  preconnect(agent, s.url);
  await until(() => s.connections.length === start + 1, 'the spare');
  await new Promise((r) => setTimeout(r, 10));
  const tcp = () => process.getActiveResourcesInfo().filter((r) => r === 'TCPSocketWrap').length;
  const withSpare = tcp();
  await agent.close();
  await until(() => s.connections[start].closed, 'the spare to close with the agent');
  assert.equal(agent.spares.size, 0);
  assert.ok(tcp() <= withSpare, 'no socket left behind');
  preconnect(agent, s.url); // a closed agent opens nothing
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(s.connections.length, start + 1);
});

test('through a proxy no spare is opened to the gateway; a no_proxy host gets one', async () => {
  const proxied = createDispatcher({ proxy: 'http://127.0.0.1:9', env: {} });
  const bypass = createDispatcher({ proxy: 'http://127.0.0.1:9', env: { NO_PROXY: '127.0.0.1' } });
  try {
    const start = s.connections.length;
    preconnect(proxied, s.url);
    await new Promise((r) => setTimeout(r, 30));
    assert.equal(s.connections.length, start, 'the proxy route opens nothing ahead');
    preconnect(bypass, s.url);
    await until(() => s.connections.length === start + 1, 'the direct spare');
    assert.equal(await get(`${s.url}/direct`, bypass), '{"ok":true}');
    assert.equal(s.connections.length, start + 1, 'the direct request took it');
  } finally {
    await proxied.close();
    await bypass.close();
  }
});

test('over TLS the spare is made with the agent’s trust, and carries the request (one handshake)', async () => {
  let hs: HttpsSimulator | undefined;
  try {
    hs = await startHttpsSimulator({ profile: 'real' });
    const dispatcher = createDispatcher({ env: { NODE_EXTRA_CA_CERTS: hs.ca.caFile }, systemCaFiles: [] });
    const client = new GatewayClient({
      baseUrl: hs.url,
      token: () => hs!.sim.tokens.production,
      dispatcher,
      retry: { maxRetries: 0 },
    });
    const completions = client.completions();
    completions.warm();
    await until(() => hs!.front.handshakes === 1, 'the TLS handshake of the spare');
    const r = await completions.complete({
      model: 'deepseek-chat',
      prefix: 'function add(a, b) {\n  return a',
      suffix: '\n}\n',
      languageId: 'typescript',
      fileName: 'a.ts',
    });
    assert.ok(r.text.length > 0);
    assert.equal(hs.front.handshakes, 1, 'the request used the spare: no second handshake');
    await dispatcher.close();
  } finally {
    await hs?.close();
  }
});

test('over TLS, typing through suggestions: one handshake per request, each the spare’s opened during the wait', async () => {
  let hs: HttpsSimulator | undefined;
  try {
    hs = await startHttpsSimulator({ profile: 'real' });
    const sim = hs.sim;
    sim.config.completions = { ...sim.config.completions, latencyMs: 5_000 };
    const dispatcher = createDispatcher({ env: { NODE_EXTRA_CA_CERTS: hs.ca.caFile }, systemCaFiles: [] });
    const completions = new GatewayClient({
      baseUrl: hs.url,
      token: () => sim.tokens.production,
      dispatcher,
      retry: { maxRetries: 0 },
    }).completions();
    const ask = (signal?: AbortSignal) =>
      completions.complete({
        model: 'deepseek-chat',
        prefix: 'function add(a, b) {\n  return a',
        suffix: '\n}\n',
        languageId: 'typescript',
        fileName: 'a.ts',
        signal,
      });
    for (let i = 0; i < 4; i++) {
      completions.warm(); // the debounce starts
      await until(() => hs!.front.handshakes >= i + 1, `the spare's handshake ${i}`);
      const ac = new AbortController();
      const superseded = ask(ac.signal).then(
        () => 'answered',
        () => 'aborted',
      );
      await until(() => sim.completionStats().requests === i + 1, `request ${i} at the gateway`);
      ac.abort(); // the next keystroke
      assert.equal(await superseded, 'aborted');
    }
    sim.config.completions = { ...sim.config.completions, latencyMs: 0 };
    completions.warm();
    await until(() => hs!.front.handshakes >= 5, 'the last spare');
    assert.ok((await ask()).text.length > 0);
    assert.equal(hs.front.handshakes, 5, 'five requests, five handshakes: none on a request’s path');
    await dispatcher.close();
  } finally {
    await hs?.close();
  }
});

test('warm() on a client with its own default agent opens a spare to the preferred gateway', async () => {
  const client = new GatewayClient({
    baseUrl: `${s.url}/v1`,
    token: () => 'sk-test-0000000000000000',
    retry: { maxRetries: 0 },
  });
  const start = s.connections.length;
  client.completions().warm();
  await until(() => s.connections.length === start + 1, 'the spare');
  assert.equal(s.connections[start].socket.bytesRead, 0, 'no token, no byte sent ahead');
  await (client as unknown as { transport: { dispatcher: WarmAgent } }).transport.dispatcher.close();
});

test('a spare the server wrote to before any request is not handed over', async () => {
  const chatty = await countingServer();
  chatty.server.once('connection', (socket: Socket) => socket.write('HTTP/1.1 408 Request Timeout\r\n\r\n'));
  const agent = trustingAgent();
  try {
    preconnect(agent, chatty.url);
    await until(() => chatty.connections.length === 1, 'the spare');
    await new Promise((r) => setTimeout(r, 30));
    assert.equal(await get(`${chatty.url}/x`, agent), '{"ok":true}');
    assert.equal(agent.spares.counts.handedOver, 0);
    assert.equal(chatty.connections.length, 2, 'a new connection carried the request');
  } finally {
    await agent.close();
    await chatty.close();
  }
});
