/**
 * The fault soak: fast-check drives the client core against the simulator with random sequences of
 * faults (resets before and after the body, 429 with and without Retry-After, 5xx, HTML pages,
 * keep-alive drips and trickling bodies, redirects, huge bodies, one endless stream event, a huge
 * model list, errors said inside a stream, backups up or down) on every
 * capability, and checks on every run that
 *   - it ends within its deadline,
 *   - the error, if any, is a GatewayError of a documented kind,
 *   - no full token, bare key or URL password is in any record, error, output or file,
 *   - at most one billed request that may have reached the gateway is made per user action,
 *   - no partial file is left behind.
 * `npm test` runs a few hundred cases; `npm run soak` runs SOAK_RUNS (10,000) and prints figures.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { GatewayClient, isGatewayError, type ErrorKind, type RequestRecord } from '../../src/gateway';
import { makePng, startSimulator, type Fault, type Simulator } from '../sim/server';
import { deadPort } from '../gateway/helpers';

const RUNS = Number(process.env.SOAK_RUNS) || 200;
const KINDS: readonly ErrorKind[] = [
  'bad_request',
  'unauthorized',
  'forbidden',
  'not_found',
  'payload_too_large',
  'rate_limited',
  'server_error',
  'network',
  'timeout',
  'protocol',
  'stream_interrupted',
  'aborted',
];
const ACTIONS = [
  'chat',
  'chatStream',
  'nativeStream',
  'models',
  'image',
  'imageUrl',
  'imageEdit',
  'videoCreate',
  'videoDownload',
] as const;
type Action = (typeof ACTIONS)[number];
const BILLED: Partial<Record<Action, RegExp>> = {
  image: /^\/v1\/images\//,
  imageUrl: /^\/v1\/images\//,
  imageEdit: /^\/v1\/images\//,
  videoCreate: /^\/v1\/videos$/,
};
const PASSWORD = 'S0akPassw0rd';
/** Per case: nothing may take longer than this (timeouts below are short on purpose). */
const CASE_DEADLINE_MS = 8_000;

const faultArb: fc.Arbitrary<Fault> = fc.oneof(
  fc.record({
    kind: fc.constant('reset' as const),
    afterEvents: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }),
  }),
  fc.record({
    kind: fc.constant('status' as const),
    status: fc.constantFrom(408, 409, 429, 500, 502, 503, 504),
    retryAfter: fc.option(fc.constantFrom('0', '1'), { nil: undefined }),
    body: fc.option(fc.constantFrom('json' as const, 'empty' as const, 'html' as const), { nil: undefined }),
  }),
  fc.record({ kind: fc.constant('html' as const), status: fc.option(fc.constantFrom(200, 502), { nil: undefined }) }),
  fc.record({
    kind: fc.constant('keepAlive' as const),
    everyMs: fc.constant(25),
    afterEvents: fc.integer({ min: 0, max: 2 }),
  }),
  fc.record({ kind: fc.constant('drip' as const), everyMs: fc.constant(15) }),
  fc.record({
    kind: fc.constant('redirect' as const),
    status: fc.constantFrom(301, 302, 307),
    location: fc.constantFrom('https://elsewhere.example.com/v1/x', '/console'),
  }),
  fc.record({
    kind: fc.constant('hugeError' as const),
    bytes: fc.constantFrom(2 * 1024 * 1024),
    status: fc.constantFrom(500, 502),
  }),
  fc.record({
    kind: fc.constant('midStreamError' as const),
    afterEvents: fc.integer({ min: 0, max: 3 }),
    errorType: fc.option(
      fc.constantFrom('insufficient_quota', 'invalid_request_error', 'authentication_error', 'rate_limit_error'),
      { nil: undefined },
    ),
  }),
  // A hostile gateway: one stream event that never ends, a 2xx body over its cap, a huge model list.
  fc.record({ kind: fc.constant('hugeEvent' as const), bytes: fc.constantFrom(12 * 1024 * 1024) }),
  fc.record({ kind: fc.constant('hugeBody' as const), bytes: fc.constantFrom(20 * 1024 * 1024, 70 * 1024 * 1024) }),
  fc.record({ kind: fc.constant('manyModels' as const), models: fc.constantFrom(50_000) }),
  fc.record({ kind: fc.constant('truncate' as const), afterEvents: fc.integer({ min: 0, max: 3 }) }),
  fc.record({ kind: fc.constant('invalidJson' as const) }),
  fc.record({ kind: fc.constant('latency' as const), ms: fc.integer({ min: 0, max: 60 }) }),
  fc.record({ kind: fc.constant('echoKey' as const) }),
  fc.record({ kind: fc.constant('okJson' as const) }),
);

const caseArb = fc.record({
  action: fc.constantFrom(...ACTIONS),
  faults: fc.array(fc.record({ fault: faultArb, count: fc.integer({ min: 1, max: 3 }), onBackup: fc.boolean() }), {
    maxLength: 3,
  }),
  backup: fc.constantFrom('none', 'up', 'down', 'credentials') as fc.Arbitrary<'none' | 'up' | 'down' | 'credentials'>,
  profile: fc.constantFrom('strict', 'real') as fc.Arbitrary<'strict' | 'real'>,
});
type Case = typeof caseArb extends fc.Arbitrary<infer T> ? T : never;

let sims: Record<'strict' | 'real', Simulator>;
let dir: string;
let dead: number;
let png: string;
const figures = { cases: 0, errors: new Map<string, number>(), billedCalls: 0, slowestMs: 0 };

before(async () => {
  sims = {
    strict: await startSimulator({ profile: 'strict', hosts: 2 }),
    real: await startSimulator({
      profile: 'real',
      hosts: 2,
      video: { pollsUntilInProgress: 0, pollsUntilDone: 0, outcome: 'completed' },
    }),
  };
  dir = await mkdtemp(join(tmpdir(), 'relay-soak-'));
  dead = await deadPort();
  png = join(dir, 'source.png');
  await writeFile(png, makePng('soak'));
});

after(async () => {
  await sims.strict.close();
  await sims.real.close();
  await rm(dir, { recursive: true, force: true });
  if (process.env.SOAK_RUNS) {
    console.log(
      `soak: ${figures.cases} cases, slowest ${figures.slowestMs} ms, billed calls ${figures.billedCalls}, outcomes ${JSON.stringify(Object.fromEntries([...figures.errors].sort()))}`,
    );
  }
});

function clientFor(sim: Simulator, c: Case, records: RequestRecord[]): GatewayClient {
  const backups =
    c.backup === 'up'
      ? [sim.urls[1]]
      : c.backup === 'down'
        ? [`http://127.0.0.1:${dead}`]
        : c.backup === 'credentials'
          ? [`http://relay:${PASSWORD}@127.0.0.1:${dead}`]
          : [];
  return new GatewayClient({
    baseUrl: sim.url,
    backupUrls: backups,
    token: () => sim.tokens.production,
    onRequest: (r) => records.push(r),
    sleep: async (_ms, signal) => {
      if (signal?.aborted) throw new Error('aborted');
    },
    timeouts: {
      chatMs: 1500,
      streamIdleMs: 250,
      chatOverallMs: 1500,
      imageMs: 1500,
      videoMs: 1500,
      videoOverallMs: 3000,
    },
  });
}

async function act(client: GatewayClient, c: Case, sim: Simulator, out: string[]): Promise<void> {
  const messages = [{ role: 'user' as const, content: 'one two three' }];
  switch (c.action) {
    case 'chat':
      out.push((await client.chat({ surface: 'compatible', model: 'gpt-4o-mini', messages })).text);
      return;
    case 'chatStream':
    case 'nativeStream':
      for await (const e of client.chatStream({
        surface: c.action === 'nativeStream' ? 'native' : 'compatible',
        model: c.action === 'nativeStream' ? 'claude-sonnet-4-5' : 'gpt-4o-mini',
        messages,
      }))
        if (e.type === 'text') out.push(e.text);
      return;
    case 'models':
      out.push((await client.listModelIds()).join(','));
      return;
    case 'image':
    case 'imageUrl':
      out.push(
        String(
          (
            await client.generateImage({
              model: c.action === 'imageUrl' ? 'dall-e-3' : 'gpt-image-1',
              prompt: 'a square',
              responseFormat: c.action === 'imageUrl' ? 'url' : undefined,
            })
          ).images.length,
        ),
      );
      return;
    case 'imageEdit':
      out.push(
        String((await client.editImage({ model: 'gpt-image-1', prompt: 'blue', imagePath: png })).images.length),
      );
      return;
    case 'videoCreate':
      out.push((await client.createVideo({ model: 'sora-2', prompt: 'a clip' })).id);
      return;
    case 'videoDownload': {
      sim.clearFaults(); // create and wait unfaulted; the faults apply to the download
      const task = await client.createVideo({ model: 'sora-2', prompt: 'a clip' });
      await client.pollVideo(task.id);
      armFaults(sim, c);
      const r = await client.downloadVideo(task.id, join(dir, `${task.id}.mp4`));
      out.push(r.outcome);
      return;
    }
  }
}

function armFaults(sim: Simulator, c: Case): void {
  for (const f of c.faults) sim.fault({ ...f.fault, count: f.count, ...(f.onBackup ? { host: 1 } : {}) });
}

function leaks(text: string, token: string): string | undefined {
  if (text.includes(token)) return 'the full token';
  if (text.includes(token.slice(3))) return 'the bare key';
  if (text.includes(PASSWORD)) return 'a URL password';
  return undefined;
}

async function oneCase(c: Case): Promise<void> {
  const sim = sims[c.profile];
  sim.reset();
  armFaults(sim, c);
  const records: RequestRecord[] = [];
  const out: string[] = [];
  const client = clientFor(sim, c, records);
  const started = Date.now();
  let error: unknown;
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      act(client, c, sim, out),
      new Promise(
        (_, reject) =>
          (timer = setTimeout(
            () => reject(new Error(`deadline: ${c.action} still running after ${CASE_DEADLINE_MS} ms`)),
            CASE_DEADLINE_MS,
          )),
      ),
    ]);
  } catch (e) {
    error = e;
  } finally {
    clearTimeout(timer);
  }
  const took = Date.now() - started;
  figures.cases++;
  figures.slowestMs = Math.max(figures.slowestMs, took);
  assert.ok(!(error instanceof Error && error.message.startsWith('deadline:')), (error as Error | undefined)?.message);
  if (error !== undefined) {
    assert.ok(isGatewayError(error), `not a GatewayError: ${inspect(error)}`);
    assert.ok(KINDS.includes(error.kind), `undocumented kind ${error.kind}`);
    figures.errors.set(`${c.action}:${error.kind}`, (figures.errors.get(`${c.action}:${error.kind}`) ?? 0) + 1);
  } else figures.errors.set(`${c.action}:ok`, (figures.errors.get(`${c.action}:ok`) ?? 0) + 1);
  const token = sim.tokens.production;
  const files = await readdir(dir);
  assert.deepEqual(
    files.filter((f) => f.includes('.part-')),
    [],
    'no partial file left',
  );
  const fileTexts = await Promise.all(
    files.filter((f) => f.endsWith('.mp4')).map((f) => readFile(join(dir, f), 'latin1')),
  );
  const texts = [
    JSON.stringify(records),
    out.join('\n'),
    ...(error
      ? [
          String((error as Error).message),
          String((error as Error).stack),
          JSON.stringify(error),
          inspect(error, { depth: 4 }),
        ]
      : []),
    ...fileTexts,
  ];
  for (const t of texts) assert.equal(leaks(t, token), undefined, `a secret leaked in ${c.action}`);
  const billed = BILLED[c.action];
  if (billed) {
    const reached = [...sim.log].filter((l) => l.method === 'POST' && billed.test(l.path) && l.status !== 429);
    figures.billedCalls += reached.length;
    assert.ok(
      reached.length <= 1,
      `${reached.length} billed requests reached the gateway for one ${c.action}: ${JSON.stringify(reached.map((r) => r.status))}`,
    );
  }
}

test(
  `fault soak: ${RUNS} random fault sequences on every capability keep every invariant`,
  { timeout: Math.max(600_000, RUNS * 2_000) },
  async () => {
    await fc.assert(fc.asyncProperty(caseArb, oneCase), {
      numRuns: RUNS,
      ...(process.env.SOAK_SEED ? { seed: Number(process.env.SOAK_SEED) } : {}),
    });
  },
);
