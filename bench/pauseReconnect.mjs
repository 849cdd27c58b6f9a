// The first inline suggestion after a typing pause (bench/run.mjs section "pauseReconnect", row 18).
//
// A gateway closes an idle connection after its keep-alive (Node's 5 s here; nginx 75 s; many
// fronts less). The first suggestion after a longer pause then waits for a TCP and a TLS handshake
// before its request can go: two round trips. The engine asks the client for a connection when its
// debounce starts (GatewayCompletions.warm → src/gateway/http/spareConnection.ts), so the handshakes
// run during the wait. Measured over TLS through a proxy that delays every chunk ONE_WAY_MS each way
// (a 20 ms round trip), the simulator (its keep-alive closing the connection) behind a TLS front
// with a throwaway CA, the real client through createDispatcher: answered completion → pause →
// [warm()] → the debounce → the timed completion. With and without warm() alternate; medians.
//   node bench/pauseReconnect.mjs [--quick]   (or through bench/run.mjs --only=pauseReconnect)
import { createRequire } from 'node:module';
import net from 'node:net';
import { join } from 'node:path';
import { isMain, runAlone } from './fixtures/standalone.mjs';

const ONE_WAY_MS = 10;
const MODEL_LATENCY_MS = 30;
/** longer than the simulator's keep-alive (Node's default, 5 s) */
const PAUSE_MS = 5_600;
const DEBOUNCE_MS = 100;

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** A TCP proxy on 127.0.0.1 that holds every chunk (and the close) `oneWayMs` each way. */
async function delayingProxy(targetPort, oneWayMs) {
  const sockets = new Set();
  const server = net.createServer((client) => {
    const upstream = net.connect(targetPort, '127.0.0.1');
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ]) {
      sockets.add(from);
      from.on('data', (d) => setTimeout(() => to.destroyed || to.write(d), oneWayMs));
      from.on('close', () => setTimeout(() => to.destroy(), oneWayMs));
      from.on('error', () => {});
    }
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: server.address().port,
    close: () =>
      new Promise((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

export async function pauseReconnectFigures({ outDir, quick = false, row }) {
  const require = createRequire(import.meta.url);
  const core = require(join(outDir, 'src/gateway/index.js'));
  const { startHttpsSimulator } = require(join(outDir, 'test/sim/tls.js'));
  const hs = await startHttpsSimulator({ profile: 'real' });
  const proxy = await delayingProxy(hs.front.port, ONE_WAY_MS);
  const rounds = quick ? 1 : 3;
  const timed = { cold: [], warm: [] };
  const handshakes = { cold: 0, warm: 0 };
  try {
    hs.sim.config.completions = { ...hs.sim.config.completions, latencyMs: MODEL_LATENCY_MS };
    const req = {
      model: 'deepseek-chat',
      prefix: 'function add(a, b) {\n  return a',
      suffix: '\n}\n',
      languageId: 'typescript',
      fileName: 'a.ts',
    };
    for (let i = 0; i < rounds * 2; i++) {
      const kind = i % 2 ? 'warm' : 'cold';
      const dispatcher = core.createDispatcher({ env: { NODE_EXTRA_CA_CERTS: hs.ca.caFile }, systemCaFiles: [] });
      try {
        const client = new core.GatewayClient({
          baseUrl: `https://localhost:${proxy.port}`,
          token: () => hs.sim.tokens.production,
          dispatcher,
          retry: { maxRetries: 0 },
        }).completions();
        await client.complete(req);
        await new Promise((r) => setTimeout(r, PAUSE_MS));
        if (kind === 'warm') client.warm();
        await new Promise((r) => setTimeout(r, DEBOUNCE_MS));
        const before = hs.front.handshakes;
        const t0 = performance.now();
        await client.complete(req);
        timed[kind].push(performance.now() - t0);
        handshakes[kind] += hs.front.handshakes - before;
      } finally {
        await dispatcher.close();
      }
    }
  } finally {
    await proxy.close();
    await hs.close();
  }
  const cold = median(timed.cold);
  const warm = median(timed.warm);
  const rtt = 2 * ONE_WAY_MS;
  const figures = {
    roundTripMs: rtt,
    modelLatencyMs: MODEL_LATENCY_MS,
    pauseMs: PAUSE_MS,
    rounds,
    withoutSpareMs: timed.cold,
    withSpareMs: timed.warm,
    handshakesInTimedRequests: handshakes,
  };
  row(
    `18 first suggestion after a ${PAUSE_MS / 1000} s pause (TLS, ${rtt} ms round trip, ${MODEL_LATENCY_MS} ms model)`,
    `with the connection opened during the debounce ${Math.round(warm)} ms, without ${Math.round(cold)} ms (handshakes inside the timed requests: ${handshakes.warm} / ${handshakes.cold}; medians of ${rounds})`,
    figures,
    `≥ one round trip (${rtt} ms) faster, no handshake inside`,
    cold - warm >= rtt && handshakes.warm === 0,
  );
  return figures;
}

// standalone: node bench/pauseReconnect.mjs [--quick]
if (isMain(import.meta.url)) await runAlone(pauseReconnectFigures);
