/**
 * "Elsewhere": an address that is not the gateway (a hostile repository's ANTHROPIC_BASE_URL, a
 * redirect's target). It answers every request like a gateway would (200, a tiny JSON or SSE body)
 * so a client that sent a token there would see success, and records every credential it is sent:
 * the auth headers, a `key=` in the query, and any header or query value that looks like a key.
 * Values are kept masked (`sk-abc...wxyz`), never in full; `sawCredential` is what tests assert on.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { maskToken } from '../../src/gateway/mask';

export interface SeenRequest {
  method: string;
  path: string;
  /** header or query names that carried a credential, with the value masked */
  credentials: Array<{ where: string; masked: string }>;
}

export interface Elsewhere {
  url: string;
  seen: SeenRequest[];
  /** whether any request carried a credential (or, with `secret`, that one) */
  sawCredential(secret?: string): boolean;
  close(): Promise<void>;
}

const AUTH = /^(authorization|proxy-authorization|x-api-key|x-goog-api-key|api-key|cookie|x-auth-token)$/i;
const KEYISH = /sk-[A-Za-z0-9_-]{8,}/;

function credentialsOf(req: IncomingMessage, raw: Map<string, string>): SeenRequest['credentials'] {
  const out: SeenRequest['credentials'] = [];
  for (const [name, value] of Object.entries(req.headers)) {
    const v = Array.isArray(value) ? value.join(',') : (value ?? '');
    if (AUTH.test(name) || KEYISH.test(v)) {
      raw.set(`${out.length}`, v);
      out.push({ where: `header ${name}`, masked: maskToken(v.replace(/^Bearer\s+/i, '')) });
    }
  }
  const u = new URL(req.url ?? '/', 'http://x');
  for (const [k, v] of u.searchParams)
    if (/^(key|api[-_]?key|token)$/i.test(k) || KEYISH.test(v)) {
      raw.set(`${out.length}`, v);
      out.push({ where: `query ${k}`, masked: maskToken(v) });
    }
  return out;
}

export async function startElsewhere(): Promise<Elsewhere> {
  const seen: SeenRequest[] = [];
  /** the full values, only to compare with a secret the test names (never printed) */
  const values: string[] = [];
  const server = createServer((req, res) => {
    const raw = new Map<string, string>();
    const entry = {
      method: req.method ?? 'GET',
      path: (req.url ?? '/').split('?')[0],
      credentials: credentialsOf(req, raw),
    };
    values.push(...raw.values());
    seen.push(entry);
    req.resume();
    req.on('end', () => {
      const sse = /event-stream/.test(String(req.headers.accept ?? ''));
      res.writeHead(200, { 'content-type': sse ? 'text/event-stream' : 'application/json' });
      res.end(sse ? 'data: {"ok":true}\n\ndata: [DONE]\n\n' : '{"object":"list","data":[]}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    sawCredential: (secret) =>
      secret === undefined ? seen.some((s) => s.credentials.length > 0) : values.some((v) => v.includes(secret)),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
