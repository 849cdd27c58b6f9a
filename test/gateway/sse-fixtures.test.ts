/**
 * SSE fixtures (test/fixtures/sse/*.sse, each with a .json of how to chunk it and what it must
 * yield), served over real HTTP on 127.0.0.1 and read through GatewayClient.chatStream on their
 * surface: CRLF framing, events split across chunks and inside a UTF-8 sequence, `: PING`
 * comments, `data:` without a space, an error event mid-stream, a usage chunk with empty choices.
 * Every fixture is read twice: split where its .json says, and in 5-byte pieces.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { GatewayClient, isGatewayError, type ChatResult, type Surface, type ToolCall } from '../../src/gateway';

interface Fixture {
  name: string;
  bytes: Buffer;
  surface: Surface;
  splitAt?: number[];
  expect: {
    text: string;
    finishReason?: string;
    usage?: { inputTokens?: number; outputTokens?: number };
    reasoning?: string;
    toolCalls?: ToolCall[];
    thinking?: ChatResult['thinking'];
    error?: { kind: string; detail: string; gatewayMessage: string; requestId?: string };
  };
}

const dir = resolve(__dirname, '../../../test/fixtures/sse');
const fixtures: Fixture[] = readdirSync(dir)
  .filter((f) => f.endsWith('.sse'))
  .map((f) => {
    const name = f.slice(0, -4);
    return {
      name,
      bytes: readFileSync(join(dir, f)),
      ...(JSON.parse(readFileSync(join(dir, `${name}.json`), 'utf8')) as Omit<Fixture, 'name' | 'bytes'>),
    };
  });

function pieces(bytes: Buffer, cuts: number[]): Buffer[] {
  const out: Buffer[] = [];
  let from = 0;
  for (const at of [...cuts, bytes.length]) {
    if (at > from) out.push(bytes.subarray(from, at));
    from = at;
  }
  return out;
}

const every = (n: number, len: number) => Array.from({ length: Math.ceil(len / n) - 1 }, (_, i) => (i + 1) * n);

let server: Server;
let base: string;
let next: { chunks: Buffer[]; path?: string } = { chunks: [] };

before(async () => {
  server = createServer((req, res) => {
    next.path = req.url;
    req.resume();
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    void (async () => {
      for (const c of next.chunks) {
        res.write(c);
        await delay(1); // separate socket writes, so the client sees separate chunks
      }
      res.end();
    })();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});

after(() => new Promise<void>((r) => server.close(() => r())));

async function read(
  f: Fixture,
  chunks: Buffer[],
): Promise<{ text: string; calls: ToolCall[]; reasoning: string; result?: ChatResult; error?: unknown }> {
  next = { chunks };
  const client = new GatewayClient({
    baseUrl: base,
    token: () => 'sk-fixture0123456789abcdefghij',
    retry: { maxRetries: 0 },
  });
  let text = '';
  let reasoning = '';
  const calls: ToolCall[] = [];
  try {
    for await (const e of client.chatStream({
      surface: f.surface,
      model: f.surface === 'native' ? 'claude-sonnet-4-5' : 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'hi' }],
    })) {
      if (e.type === 'text') text += e.text;
      if (e.type === 'reasoning') reasoning += e.text;
      if (e.type === 'tool_call') calls.push(e.call);
      if (e.type === 'done') return { text, calls, reasoning, result: e.result };
    }
    return { text, calls, reasoning };
  } catch (error) {
    return { text, calls, reasoning, error };
  }
}

test('the fixture set covers both surfaces', () => {
  assert.ok(fixtures.length >= 11);
  for (const s of ['compatible', 'native']) assert.ok(fixtures.filter((f) => f.surface === s).length >= 5, s);
});

for (const f of fixtures) {
  for (const [how, cuts] of [
    ['as split in its .json', f.splitAt ?? []],
    ['in 5-byte pieces', every(5, f.bytes.length)],
  ] as const) {
    test(`${f.name} (${f.surface}), ${how}`, async () => {
      const r = await read(f, pieces(f.bytes, [...cuts]));
      assert.equal(next.path, f.surface === 'native' ? '/v1/messages' : '/v1/chat/completions');
      assert.equal(r.text, f.expect.text);
      if (f.expect.error) {
        assert.ok(isGatewayError(r.error), `expected a GatewayError, got ${String(r.error)}`);
        assert.equal(r.error.kind, f.expect.error.kind);
        assert.equal(r.error.detail, f.expect.error.detail);
        assert.equal(r.error.gatewayMessage, f.expect.error.gatewayMessage);
        if (f.expect.error.requestId) assert.equal(r.error.requestId, f.expect.error.requestId);
        return;
      }
      assert.equal(r.error, undefined, String(r.error));
      assert.equal(r.result?.text, f.expect.text);
      if (f.expect.finishReason) assert.equal(r.result?.finishReason, f.expect.finishReason);
      if (f.expect.usage) assert.deepEqual(r.result?.usage, f.expect.usage);
      // Tool calls arrive once each, complete, in order; the result lists the same.
      assert.deepEqual(r.calls, f.expect.toolCalls ?? []);
      assert.deepEqual(r.result?.toolCalls, f.expect.toolCalls ?? []);
      assert.equal(r.reasoning, f.expect.reasoning ?? '');
      assert.deepEqual(r.result?.thinking, f.expect.thinking ?? []);
    });
  }
}
