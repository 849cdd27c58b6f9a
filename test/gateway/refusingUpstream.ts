/**
 * A strict upstream in front of the simulator: it refuses the requests a rule matches with a real
 * provider's exact answer (status and body, shared/reference/provider-constraints.md), records the
 * body of every request it receives, and passes everything else on to the simulator unchanged
 * (streams included). The simulator's own `status` fault answers fixed words; the rules here are
 * the reference's, and only ever refuse more than the simulator does, never less.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import type { Simulator } from '../sim/server';

type Json = Record<string, any>;

export interface RefusalRule {
  /** the request path (e.g. /v1/responses) */
  path: string;
  /** refuses a request whose body this matches */
  when: (body: Json) => boolean;
  status: number;
  body: Json;
  /** at most this many times (default: every time) */
  count?: number;
}

export interface RefusingUpstream {
  url: string;
  /** every request received: its path, its body and whether it was refused here */
  received: Array<{ path: string; body: Json; refused: boolean }>;
  refuse(rule: RefusalRule): void;
  reset(): void;
  close(): Promise<void>;
}

/** OpenAI's error envelope. */
export const openAiError = (message: string, param: string | null = null, code: string | null = null) => ({
  error: { message, type: 'invalid_request_error', param, code },
});
/** Anthropic's error envelope. */
export const anthropicError = (message: string) => ({
  type: 'error',
  error: { type: 'invalid_request_error', message },
  request_id: 'req_011CRefused',
});

const PASSED = ['authorization', 'x-api-key', 'content-type', 'accept', 'anthropic-version', 'accept-language'];

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

export async function startRefusingUpstream(sim: () => Simulator): Promise<RefusingUpstream> {
  let rules: RefusalRule[] = [];
  const received: RefusingUpstream['received'] = [];
  const server: Server = createServer((req, res) => {
    void (async () => {
      const raw = await readBody(req);
      const path = req.url ?? '/';
      let body: Json = {};
      try {
        body = raw.length ? (JSON.parse(raw.toString('utf8')) as Json) : {};
      } catch {
        /* not JSON: passed on */
      }
      const rule = req.method === 'POST' ? rules.find((r) => path.startsWith(r.path) && r.when(body)) : undefined;
      received.push({ path, body, refused: !!rule });
      if (rule) {
        if (rule.count !== undefined && --rule.count <= 0) rules = rules.filter((r) => r !== rule);
        res.writeHead(rule.status, { 'content-type': 'application/json', 'x-request-id': 'req-refused' });
        res.end(JSON.stringify(rule.body));
        return;
      }
      const headers: Record<string, string> = {};
      for (const h of PASSED) if (typeof req.headers[h] === 'string') headers[h] = req.headers[h];
      const up = await request(`${sim().url}${path}`, {
        method: req.method as 'GET' | 'POST',
        headers,
        ...(req.method === 'POST' ? { body: raw } : {}),
      });
      const out: Record<string, string> = {};
      for (const [k, v] of Object.entries(up.headers)) if (typeof v === 'string' && k !== 'content-length') out[k] = v;
      res.writeHead(up.statusCode, out);
      for await (const chunk of up.body) res.write(chunk);
      res.end();
    })().catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    refuse: (rule) => void rules.push({ ...rule }),
    reset: () => {
      rules = [];
      received.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
