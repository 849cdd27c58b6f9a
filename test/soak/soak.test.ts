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
 * Chat actions run across one to three gateways (other simulators with their own tokens and faults, as
 * the fallback routes of chatAcross / chatStreamAcross), and every run also checks that
 *   - no token of one gateway ever reached the other (the simulators' credential digests),
 *   - at most one chat request was answered (2xx: may be billed) across both gateways per action,
 *     and no chat request was sent anywhere after it.
 * And over an address that is no gateway ("elsewhere": a redirect's target, the address a terminal tool's
 * settings file names — the repository's, read only in a trusted workspace, or the user's)
 *   (a) no credential ever reaches an origin outside its gateway;
 *   (b) once a gateway may have billed a request (2xx, or its answer lost: a proxy's page, a cut after
 *       the body), no other work request follows for the same action, at any gateway.
 * `npm test` runs a few hundred cases; `npm run soak` runs SOAK_RUNS (10,000) and prints figures.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import {
  GatewaySet,
  chatAcross,
  chatStreamAcross,
  isGatewayError,
  type ErrorKind,
  type RequestRecord,
  type Route,
} from '../../src/gateway';
import { credentialDigest, defaultConfig, makePng, startSimulator, type Fault, type Simulator } from '../sim/server';
import { deadPort } from '../gateway/helpers';
import { MAX_SENDS_PER_ACTION } from '../../src/gateway/http/action';
import { maskToken } from '../../src/gateway/mask';
import { nodeToolsEnvironment, toolStatuses } from '../../src/gateway/tools';
import { probeTargetOf } from '../../src/gateway/tools/probeTarget';
import { startElsewhere, type Elsewhere } from '../sim/elsewhere';

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
  'toolProbe',
] as const;
type Action = (typeof ACTIONS)[number];
const BILLED: Partial<Record<Action, RegExp>> = {
  image: /^\/v1\/images\//,
  imageUrl: /^\/v1\/images\//,
  imageEdit: /^\/v1\/images\//,
  videoCreate: /^\/v1\/videos$/,
};
const PASSWORD = 'S0akPassw0rd';
/** A redirect's or a tool file's address that stands for the "elsewhere" server (known once it listens). */
const ELSEWHERE = 'elsewhere:';
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
    // ELSEWHERE: the recording server below (a redirect to an address that is not the gateway)
    location: fc.constantFrom('https://elsewhere.example.com/v1/x', '/console', ELSEWHERE),
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
  // The gateway took the work, but its answer never came back: a proxy's page, or a cut after the body.
  fc.record({ kind: fc.constant('proxyPage' as const), status: fc.constantFrom(502, 504, 520, 524) }),
  fc.record({ kind: fc.constant('resetAfterBody' as const) }),
);

const caseArb = fc.record({
  action: fc.constantFrom(...ACTIONS),
  faults: fc.array(fc.record({ fault: faultArb, count: fc.integer({ min: 1, max: 3 }), onBackup: fc.boolean() }), {
    maxLength: 3,
  }),
  backup: fc.constantFrom('none', 'up', 'down', 'credentials') as fc.Arbitrary<'none' | 'up' | 'down' | 'credentials'>,
  profile: fc.constantFrom('strict', 'real') as fc.Arbitrary<'strict' | 'real'>,
  /** chat actions: how many other gateways follow as fallback routes (the second, then the third), each with its own faults */
  fallbacks: fc.integer({ min: 0, max: 2 }),
  /** toolProbe: whether the workspace holding the project file is trusted */
  trusted: fc.boolean(),
  /** toolProbe: where the tool's file points, and whether that file is the repository's or the user's */
  toolAddress: fc.constantFrom('base', 'backup', 'elsewhere', 'second') as fc.Arbitrary<
    'base' | 'backup' | 'elsewhere' | 'second'
  >,
  toolFile: fc.constantFrom('project', 'user') as fc.Arbitrary<'project' | 'user'>,
  secondFaults: fc.array(fc.record({ fault: faultArb, count: fc.integer({ min: 1, max: 3 }) }), { maxLength: 2 }),
});
type Case = typeof caseArb extends fc.Arbitrary<infer T> ? T : never;

let sims: Record<'strict' | 'real', Simulator>;
/** The second and third gateways: other simulators whose tokens are their own. */
let second: Simulator;
let third: Simulator;
/** Not a gateway: records every credential it is sent (none may ever arrive). */
let away: Elsewhere;
let dir: string;
/** toolProbe: a repository's folder and a home folder, each with a .claude/settings.json written per case */
let workspace: string;
let home: string;
let dead: number;
let png: string;
const figures = {
  cases: 0,
  errors: new Map<string, number>(),
  billedCalls: 0,
  slowestMs: 0,
  elsewhere: 0,
  answerLost: 0,
  toolsNotSent: 0,
  projectNotRead: 0,
};

before(async () => {
  sims = {
    strict: await startSimulator({ profile: 'strict', hosts: 2 }),
    real: await startSimulator({
      profile: 'real',
      hosts: 2,
      video: { pollsUntilInProgress: 0, pollsUntilDone: 0, outcome: 'completed' },
    }),
  };
  second = await startSimulator({
    profile: 'strict',
    tokens: defaultConfig().tokens.map((t) => ({ ...t, value: `sk-2nd${t.value.slice(6)}` })),
  });
  third = await startSimulator({
    profile: 'real',
    tokens: defaultConfig().tokens.map((t) => ({ ...t, value: `sk-3rd${t.value.slice(6)}` })),
  });
  away = await startElsewhere();
  dir = await mkdtemp(join(tmpdir(), 'relay-soak-'));
  workspace = join(dir, 'repo');
  home = join(dir, 'home');
  await mkdir(join(dir, 'bin'), { recursive: true });
  await writeFile(join(dir, 'bin', 'claude'), '#!/bin/sh\nexit 3\n', { mode: 0o755 }); // found on the PATH, never run
  dead = await deadPort();
  png = join(dir, 'source.png');
  await writeFile(png, makePng('soak'));
});

after(async () => {
  await sims.strict.close();
  await sims.real.close();
  await second.close();
  await third.close();
  await away.close();
  await rm(dir, { recursive: true, force: true });
  if (process.env.SOAK_RUNS) {
    console.log(
      `soak: ${figures.cases} cases, slowest ${figures.slowestMs} ms, billed calls ${figures.billedCalls}, requests elsewhere ${figures.elsewhere} (none with a credential), tool probes not sent ${figures.toolsNotSent}, project files not read (untrusted) ${figures.projectNotRead}, billed with the answer lost ${figures.answerLost} (none followed by another), outcomes ${JSON.stringify(Object.fromEntries([...figures.errors].sort()))}`,
    );
  }
});

/** The two gateways: the case's simulator (with its backups) first, the second simulator next. */
function gatewaysFor(sim: Simulator, c: Case, records: RequestRecord[]): GatewaySet {
  const backups =
    c.backup === 'up'
      ? [sim.urls[1]]
      : c.backup === 'down'
        ? [`http://127.0.0.1:${dead}`]
        : c.backup === 'credentials'
          ? [`http://relay:${PASSWORD}@127.0.0.1:${dead}`]
          : [];
  const profiles = [
    { id: 'first', name: 'First', baseUrl: sim.url, backupUrls: backups },
    { id: 'second', name: 'Second', baseUrl: second.url },
    { id: 'third', name: 'Third', baseUrl: third.url },
  ];
  return new GatewaySet(profiles, {
    token: (id) =>
      id === 'first' ? sim.tokens.production : id === 'second' ? second.tokens.production : third.tokens.production,
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

/** A chat's routes: the first gateway, then (with `fallback`) the same model at the second. */
function routesOf(c: Case, model: string): Route[] {
  return [
    { gateway: 'first', model },
    ...['second', 'third'].slice(0, c.fallbacks).map((gateway) => ({ gateway, model })),
  ];
}

async function act(set: GatewaySet, c: Case, sim: Simulator, out: string[]): Promise<void> {
  const messages = [{ role: 'user' as const, content: 'one two three' }];
  const client = set.get('first')!;
  switch (c.action) {
    case 'chat': {
      const { result, failovers } = await chatAcross(set, routesOf(c, 'gpt-4o-mini'), {
        surface: 'compatible',
        messages,
      });
      out.push(result.text, ...failovers.map((f) => f.error.message));
      return;
    }
    case 'chatStream':
    case 'nativeStream':
      for await (const e of chatStreamAcross(
        set,
        routesOf(c, c.action === 'nativeStream' ? 'claude-sonnet-4-5' : 'gpt-4o-mini'),
        { surface: c.action === 'nativeStream' ? 'native' : 'compatible', messages },
      ))
        if (e.type === 'text') out.push(e.text);
        else if (e.type === 'failover') out.push(e.error.message);
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
    case 'toolProbe': {
      // Claude Code set up for the first gateway in the terminal; a settings file (the repository's or the
      // user's) names another address; the real resolvers read it as Claude Code would (a project file only
      // in a trusted workspace), and the probe goes where they say, with the terminal's token.
      const address = {
        base: sim.url,
        backup: set.profile('first')?.backupUrls?.[0] ?? sim.url,
        elsewhere: away.url,
        second: second.url,
      }[c.toolAddress];
      const file =
        c.toolFile === 'project' ? join(workspace, '.claude/settings.json') : join(home, '.claude/settings.json');
      await rm(join(workspace, '.claude'), { recursive: true, force: true });
      await rm(join(home, '.claude'), { recursive: true, force: true });
      await mkdir(join(file, '..'), { recursive: true });
      await writeFile(file, JSON.stringify({ env: { ANTHROPIC_BASE_URL: address } }));
      const env = {
        PATH: join(dir, 'bin'),
        ANTHROPIC_BASE_URL: sim.url,
        ANTHROPIC_AUTH_TOKEN: sim.tokens.production,
        ANTHROPIC_MODEL: 'claude-sonnet-4-5',
      };
      const environment = nodeToolsEnvironment({
        env,
        homeDir: home,
        workspaceDir: workspace,
        workspaceTrusted: c.trusted,
      });
      const gateway = {
        baseUrl: sim.url,
        id: 'first',
        providerId: 'model-relay-first',
        name: 'First',
        maskedToken: maskToken(sim.tokens.production),
        tokenVariable: 'ANTHROPIC_AUTH_TOKEN',
        models: [{ id: 'claude-sonnet-4-5', surfaces: ['native' as const] }],
      };
      const status = (await toolStatuses(environment, gateway)).find((x) => x.tool === 'claude-code')!;
      const p = await client.probeTool(await probeTargetOf(status, env), { timeoutMs: 1500 });
      out.push(p.cause ?? 'ok', ...(status.resolved?.problems ?? []));
      if (p.sent === false) figures.toolsNotSent++;
      if (status.resolved?.problems.some((x) => /untrusted workspace/.test(x))) figures.projectNotRead++;
      return;
    }
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

/** The fault with the "elsewhere" placeholder replaced by the recording server's address. */
function placed(f: Fault): Fault {
  return f.kind === 'redirect' && f.location === ELSEWHERE ? { ...f, location: `${away.url}/v1/x` } : f;
}

function armFaults(sim: Simulator, c: Case): void {
  for (const f of c.faults) sim.fault({ ...placed(f.fault), count: f.count, ...(f.onBackup ? { host: 1 } : {}) });
}

const CHAT_PATH = /^\/v1\/(chat\/completions|messages)$/;

/** No gateway saw a token of another; at most one chat answered (2xx) across all three, and nothing sent after it. */
function checkAcrossGateways(sim: Simulator, c: Case): void {
  const gateways = [
    { name: 'first', s: sim },
    { name: 'second', s: second },
    { name: 'third', s: third },
  ];
  for (const owner of gateways)
    for (const t of Object.values(owner.s.tokens))
      for (const other of gateways)
        if (other !== owner)
          assert.ok(
            !other.s.credentials.includes(credentialDigest(t)),
            `the ${other.name} gateway saw a token of the ${owner.name} (${c.action})`,
          );
  const chats = gateways
    .flatMap((g) => g.s.log)
    .filter((l) => CHAT_PATH.test(l.path))
    .sort((x, y) => x.time - y.time);
  const answered = chats.filter((l) => l.status >= 200 && l.status < 300);
  assert.ok(answered.length <= 1, `${answered.length} chat requests were answered for one ${c.action}`);
  if (answered.length)
    assert.equal(chats.at(-1), answered[0], `a chat request was sent after one was answered (${c.action})`);
  const chat = ['chat', 'chatStream', 'nativeStream'].includes(c.action);
  if (!chat || c.fallbacks < 1)
    assert.equal(second.log.length, 0, 'the second gateway is only asked as a chat fallback');
  if (!chat || c.fallbacks < 2) assert.equal(third.log.length, 0, 'the third gateway is only asked as a chat fallback');
}

/** The requests a gateway may bill: the work requests (not reads), whatever their surface or capability. */
const WORK_PATH = /^\/v1\/(chat\/completions|messages|responses|completions|images\/|videos$)/;

/**
 * (b) No request that may have been billed is followed by another for the same user action: once a
 * gateway took a request's work (it answered 2xx, or it ran the work and its answer was lost on the
 * way: `answerLost`), no work request goes anywhere again — not a retry, a backup, another gateway, a
 * surface move or a reasoning resend.
 */
function checkBilledOnce(sim: Simulator, c: Case): void {
  const work = [...sim.log, ...second.log, ...third.log]
    .filter((l) => l.method === 'POST' && WORK_PATH.test(l.path))
    .sort((x, y) => x.time - y.time);
  assert.ok(work.length <= MAX_SENDS_PER_ACTION, `${c.action}: ${work.length} work requests for one action`);
  const first = work.findIndex((l) => l.answerLost || (l.status >= 200 && l.status < 300));
  if (first < 0) return;
  if (work[first].answerLost) figures.answerLost++;
  assert.deepEqual(
    work.slice(first + 1).map((l) => `${l.path} ${l.status}`),
    [],
    `${c.action}: a request the gateway may have billed (${work[first].path} ${work[first].status}${work[first].answerLost ? ', answer lost' : ''}) was followed by another`,
  );
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
  second.reset();
  third.reset();
  armFaults(sim, c);
  // the fallbacks' own faults: the second's, and the same ones at the third
  for (const f of c.secondFaults) for (const g of [second, third]) g.fault({ ...placed(f.fault), count: f.count });
  const awaySeen = away.seen.length;
  const records: RequestRecord[] = [];
  const out: string[] = [];
  const set = gatewaysFor(sim, c, records);
  const started = Date.now();
  let error: unknown;
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      act(set, c, sim, out),
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
  for (const t of texts) {
    assert.equal(leaks(t, token), undefined, `a secret leaked in ${c.action}`);
    assert.equal(leaks(t, second.tokens.production), undefined, `the second gateway's token leaked in ${c.action}`);
    assert.equal(leaks(t, third.tokens.production), undefined, `the third gateway's token leaked in ${c.action}`);
  }
  checkAcrossGateways(sim, c);
  checkBilledOnce(sim, c);
  // (a) no credential ever reaches an origin outside its gateway: not by a redirect, not by a tool's file
  assert.deepEqual(
    away.seen.slice(awaySeen).filter((r) => r.credentials.length),
    [],
    `a credential reached an address outside its gateway (${c.action})`,
  );
  figures.elsewhere += away.seen.length - awaySeen;
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
