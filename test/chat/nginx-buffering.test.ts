/**
 * A real buffering proxy: Debian's nginx on loopback in front of the simulator (started here with a
 * generated config, stopped by pid). With `proxy_buffering on` the stream arrives in one burst: the
 * chat says so, and the offered fallback (streaming off) works through the same proxy. With
 * `proxy_buffering off` it streams normally.
 *
 * Skipped with a note when nginx is missing, unless CI is set (then it fails).
 */
import { imageFiles } from './helpers';
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator, type Simulator } from '../sim/server';
import { makeClient, deadPort } from '../gateway/helpers';
import { ChatSession, type SessionEvent } from '../../src/host/chat/session';
import type { ChatOptions } from '../../src/shared/chatProtocol';

const NGINX = ['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/local/nginx/sbin/nginx'].find((p) => existsSync(p));
const missing = NGINX
  ? false
  : 'nginx is not installed (apt-get install nginx-light); this test needs a real buffering proxy';
if (!NGINX && process.env.CI)
  throw new Error(
    'CI is set but nginx is missing: install nginx (Debian: nginx-light) so the buffering-proxy test can run.',
  );
if (missing) console.log(`# note: skipping the nginx buffering tests: ${missing}`);

interface Nginx {
  url: string;
  stop(): Promise<void>;
}

async function waitForPort(port: number, deadline: number, proc: ChildProcess, log: string): Promise<void> {
  for (;;) {
    if (proc.exitCode !== null)
      throw new Error(`nginx exited with ${proc.exitCode}: ${await readFile(log, 'utf8').catch(() => '')}`);
    const ok = await new Promise<boolean>((resolve) => {
      const s = connect(port, '127.0.0.1');
      s.once('connect', () => {
        s.destroy();
        resolve(true);
      });
      s.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline)
      throw new Error(`nginx did not listen on ${port}: ${await readFile(log, 'utf8').catch(() => '')}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function startNginx(upstream: string, buffering: boolean, extra = ''): Promise<Nginx> {
  const dir = await mkdtemp(join(tmpdir(), 'relay-nginx-'));
  const port = await deadPort();
  const up = new URL(upstream);
  const t = (name: string) => join(dir, name);
  const conf = `
daemon off;
master_process off;
worker_processes 1;
pid ${t('nginx.pid')};
error_log ${t('error.log')} warn;
events { worker_connections 64; }
http {
  access_log off;
  client_body_temp_path ${t('client_body')};
  proxy_temp_path ${t('proxy')};
  fastcgi_temp_path ${t('fastcgi')};
  uwsgi_temp_path ${t('uwsgi')};
  scgi_temp_path ${t('scgi')};
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://${up.host};
      # nginx's default upstream protocol. Over HTTP/1.1 the upstream answer is chunked and nginx
      # passes on each complete chunk even when buffering; over HTTP/1.0 the body has no framing
      # and a buffering nginx holds it until the upstream closes: the proxy problem users meet.
      proxy_http_version 1.0;
      proxy_buffering ${buffering ? 'on' : 'off'};
      ${extra}
      ${buffering ? '# a gateway may ask proxies not to buffer (X-Accel-Buffering: no); this proxy ignores that\n      proxy_ignore_headers X-Accel-Buffering;\n      proxy_buffer_size 64k;\n      proxy_buffers 8 64k;\n      proxy_busy_buffers_size 128k;' : ''}
    }
  }
}
`;
  const confPath = t('nginx.conf');
  await writeFile(confPath, conf);
  const proc = spawn(NGINX!, ['-p', dir, '-c', confPath, '-e', t('error.log')], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  try {
    await waitForPort(port, Date.now() + 10_000, proc, t('error.log'));
  } catch (e) {
    proc.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
    throw new Error(`${(e as Error).message}\n${stderr}`);
  }
  return {
    url: `http://127.0.0.1:${port}`,
    async stop() {
      if (proc.exitCode === null && proc.pid) {
        const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
        process.kill(proc.pid, 'SIGTERM');
        const timer = setTimeout(() => proc.exitCode === null && proc.pid && process.kill(proc.pid, 'SIGKILL'), 5_000);
        await exited;
        clearTimeout(timer);
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}

let sim: Simulator | undefined;
const proxies: Nginx[] = [];
before(async () => {
  if (!missing) sim = await startSimulator();
});
after(async () => {
  for (const p of proxies.splice(0)) await p.stop();
  await sim?.close();
});

const opts = (surface: 'compatible' | 'native'): ChatOptions => ({
  surface,
  model: surface === 'native' ? 'claude-sonnet-4-5' : 'gpt-4o-mini',
  system: '',
  temperature: 0.5,
  maxTokens: 256,
});
const QUESTION = 'one two three four five six seven eight';

function session(baseUrl: string, streaming: () => boolean) {
  const { client, records } = makeClient(sim!, { baseUrl });
  const events: Array<SessionEvent & { at: number }> = [];
  const s = new ChatSession({
    images: imageFiles(),
    backend: client,
    streaming,
    listener: (e) => events.push({ ...e, at: Date.now() }),
  });
  return { s, events, records };
}

for (const surface of ['compatible', 'native'] as const) {
  test(
    `${surface}: behind nginx with proxy_buffering on, the stream arrives in one burst; the chat says so and streaming off works`,
    { skip: missing, timeout: 30_000 },
    async () => {
      sim!.reset();
      const proxy = await startNginx(sim!.url, true);
      proxies.push(proxy);
      try {
        sim!.fault({ kind: 'slowChunks', ms: 60 });
        let streaming = true;
        const { s, events, records } = session(proxy.url, () => streaming);
        const entry = (await s.send(QUESTION, opts(surface)))!;
        assert.equal(entry.status, 'done', JSON.stringify(entry.error));
        assert.equal(entry.text, `Echo: ${QUESTION}`);
        assert.equal(records.at(-1)!.buffered, true, 'the core flagged the burst');
        const notice = entry.notices?.find((n) => n.kind === 'buffering');
        assert.ok(notice, 'the chat tells the user about the buffering proxy');
        assert.match(notice.text, /proxy/);
        const d = events.filter((e) => e.type === 'entryDelta');
        assert.ok(d.length >= 4);
        assert.ok(d.at(-1)!.at - d[0].at < 100, `deltas arrived together (${d.at(-1)!.at - d[0].at} ms)`);
        // The offered fallback: streaming off gives the whole reply through the same proxy.
        streaming = false;
        const plain = (await s.send(QUESTION, opts(surface)))!;
        assert.equal(plain.status, 'done');
        assert.equal(plain.text, `Echo: ${QUESTION}`);
        assert.equal(records.at(-1)!.stream, false);
        assert.equal(plain.notices, undefined, 'told once');
      } finally {
        await proxy.stop();
        proxies.splice(proxies.indexOf(proxy), 1);
      }
    },
  );

  test(
    `${surface}: a proxy that cuts a slow stream off (proxy_read_timeout): the chat offers a non-streamed call and it works`,
    { skip: missing, timeout: 30_000 },
    async () => {
      sim!.reset();
      const proxy = await startNginx(sim!.url, true, 'proxy_read_timeout 300ms;');
      proxies.push(proxy);
      try {
        // The stream pauses longer than the proxy waits: the proxy ends it early. A plain call is fast.
        sim!.fault({ kind: 'slowChunks', ms: 700 });
        const { s, records } = session(proxy.url, () => true);
        const failed = (await s.send(QUESTION, opts(surface)))!;
        assert.equal(failed.status, 'error');
        assert.ok(failed.error?.streamFailed, 'the card offers to ask again without streaming');
        assert.deepEqual(
          records.map((r) => r.stream),
          [true],
          'not re-sent on its own (billed)',
        );
        assert.equal(records[0].errorKind, 'stream_interrupted');
        const entry = (await s.retryWithoutStreaming(opts(surface)))!;
        assert.equal(entry.status, 'done', JSON.stringify(entry.error));
        assert.equal(entry.text, `Echo: ${QUESTION}`);
        assert.ok(
          entry.notices?.some((n) => n.kind === 'fallback' && /without streaming/.test(n.text)),
          JSON.stringify(entry.notices),
        );
        assert.deepEqual(
          records.map((r) => r.stream),
          [true, false],
        );
      } finally {
        await proxy.stop();
        proxies.splice(proxies.indexOf(proxy), 1);
      }
    },
  );

  test(
    `${surface}: behind nginx with proxy_buffering off, the reply streams normally`,
    { skip: missing, timeout: 30_000 },
    async () => {
      sim!.reset();
      const proxy = await startNginx(sim!.url, false);
      proxies.push(proxy);
      try {
        sim!.fault({ kind: 'slowChunks', ms: 60 });
        const { s, events, records } = session(proxy.url, () => true);
        const entry = (await s.send(QUESTION, opts(surface)))!;
        assert.equal(entry.status, 'done', JSON.stringify(entry.error));
        assert.equal(entry.text, `Echo: ${QUESTION}`);
        assert.equal(records.at(-1)!.buffered, false);
        assert.equal(entry.notices, undefined, 'no buffering notice');
        const d = events.filter((e) => e.type === 'entryDelta');
        assert.ok(d.length >= 4);
        assert.ok(d.at(-1)!.at - d[0].at >= 150, `deltas were spread over time (${d.at(-1)!.at - d[0].at} ms)`);
      } finally {
        await proxy.stop();
        proxies.splice(proxies.indexOf(proxy), 1);
      }
    },
  );
}
