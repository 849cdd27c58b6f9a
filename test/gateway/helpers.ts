/** Shared test helpers: a client wired to a simulator, with instant sleep and a recorded log. */
import { GatewayClient, type GatewayClientOptions, type RequestRecord } from '../../src/gateway';
import type { Simulator } from '../sim/server';

export interface TestClient {
  client: GatewayClient;
  records: RequestRecord[];
  sleeps: number[];
}

export function makeClient(
  sim: Simulator,
  overrides: Partial<GatewayClientOptions> & { tokenName?: string } = {},
): TestClient {
  const records: RequestRecord[] = [];
  const sleeps: number[] = [];
  const { tokenName, ...rest } = overrides;
  const client = new GatewayClient({
    baseUrl: sim.url,
    token: () => sim.tokens[tokenName ?? 'production'],
    onRequest: (r) => records.push(r),
    sleep: async (ms, signal) => {
      if (signal?.aborted) throw new Error('aborted');
      sleeps.push(ms);
    },
    random: () => 0.5,
    ...rest,
  });
  return { client, records, sleeps };
}

/** Collects every event of a stream; returns text and the done result. */
export async function collect<T extends { type: string }>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const e of it) out.push(e);
  return out;
}

/** Runs fn and returns the thrown error (fails if nothing is thrown). */
export async function thrown(fn: () => Promise<unknown>): Promise<any> {
  try {
    await fn();
  } catch (e) {
    return e;
  }
  throw new Error('expected an error, none was thrown');
}

/** A port on 127.0.0.1 where nothing listens. */
export async function deadPort(): Promise<number> {
  const net = await import('node:net');
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}
