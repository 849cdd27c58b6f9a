/**
 * The inline-completion engine through the real core client (GatewayClient.completions()) against
 * the simulator's POST /v1/completions, on the system clock: a pause gets the simulator's
 * fill-in-the-middle answer; a keystroke while a request waits on the model closes its socket at
 * once (the simulator records the abort long before its answer was due, and bills nothing); a refused
 * token pauses suggestions with the core's classification, no request per keystroke; an answer the
 * simulator cut at max tokens shows only its complete lines, or nothing.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { GatewayClient } from '../../src/gateway';
import { CompletionEngine } from '../../src/host/completions/engine';
import { systemClock } from '../../src/host/completions/clock';
import type { EngineState, Suggestion } from '../../src/host/completions/types';
import { startSimulator, type Simulator } from '../sim/server';
import { SETTINGS, tokenSource } from './completionRig';

let sim: Simulator;
before(async () => {
  sim = await startSimulator({ profile: 'real' });
});
after(() => sim.close());

function setup(token: string, settings = SETTINGS) {
  const client = new GatewayClient({ baseUrl: sim.url, token: () => token, retry: { maxRetries: 0 } }).completions();
  const states: EngineState[] = [];
  const engine = new CompletionEngine({
    client: () => client,
    clock: systemClock,
    settings: () => settings,
    price: () => undefined,
    onState: (s) => states.push(s),
  });
  let version = 0;
  let cancel: (() => void) | undefined;
  const ask = (text: string, offset = text.length): Promise<Suggestion | undefined> => {
    cancel?.();
    const src = tokenSource();
    cancel = src.cancel;
    const v = ++version;
    return engine.provide(
      {
        id: 'file:///w/src/a.ts',
        relativePath: 'src/a.ts',
        languageId: 'typescript',
        version: v,
        text,
        size: text.length,
        currentVersion: () => version,
      },
      offset,
      { trigger: 'automatic' },
      src.token,
    );
  };
  return { engine, states, ask };
}

test('a pause in typing gets the simulator’s fill-in-the-middle answer, once', async () => {
  sim.reset();
  const { ask, engine } = setup(sim.tokens.production!);
  const head = 'function total(items) {\n  ret';
  const s = await ask(`${head}\n}\n`, head.length);
  assert.equal(s?.source, 'network');
  assert.match(s!.insertText, /^urn items/);
  assert.deepEqual(sim.completionStats(), { requests: 1, answered: 1, refused: 0, aborted: 0, fim: 1 });
  assert.equal(engine.stats().requests, 1);
  assert.ok(engine.stats().tokens > 0);
});

test('a keystroke while the model thinks: the socket is closed at once, nothing billed, no reply shown', async () => {
  sim.reset();
  sim.config.completions = { ...sim.config.completions, latencyMs: 5000 };
  try {
    const { ask, engine } = setup(sim.tokens.production!);
    const first = ask('const value = ');
    // the debounce (150 ms at first) passes, the request reaches the simulator
    for (let i = 0; i < 100 && sim.completionStats().requests === 0; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(sim.completionStats().requests, 1);
    const t0 = Date.now();
    const second = ask('const value = 4');
    assert.equal(await first, undefined);
    for (let i = 0; i < 400 && sim.completionStats().aborted === 0; i++) await new Promise((r) => setTimeout(r, 5));
    assert.equal(sim.completionStats().aborted, 1, 'the simulator saw the connection close');
    assert.ok(Date.now() - t0 < 2000, `closed after ${Date.now() - t0} ms, not when the answer was due`);
    assert.equal(sim.completionStats().answered, 0);
    assert.equal(engine.stats().aborted, 1);
    sim.config.completions = { ...sim.config.completions, latencyMs: 5 };
    // the second keystroke's request (after its own wait) answers, for the latest text
    const s = await second;
    assert.equal(s?.version, 2);
  } finally {
    sim.config.completions = { ...sim.config.completions, latencyMs: 5 };
  }
});

test('a refused token pauses suggestions with the core’s words; typing on sends nothing', async () => {
  sim.reset();
  const { ask, engine, states } = setup('sk-wrongwrongwrongwrongwrongwrongwrongwrongwrong');
  assert.equal(await ask('const a = '), undefined);
  const st = engine.state();
  assert.equal(st.kind, 'paused-error');
  assert.match((st as { cause: string }).cause, /^HTTP 401/);
  for (const text of ['const a = 1', 'const a = 12', 'const a = 123']) {
    await ask(text);
    await new Promise((r) => setTimeout(r, 200));
  }
  assert.equal(engine.stats().requests, 1, 'one request, not one per keystroke');
  assert.equal(states.length, 1);
});

test('an answer cut at max tokens (finish_reason "length") shows its complete lines, or nothing mid-line', async () => {
  sim.reset();
  sim.config.completions = {
    ...sim.config.completions,
    text: 'urn items\n    .map((i) => i.price)\n    .reduce((a, b) => a + b, 0);',
  };
  try {
    const head = 'function total(items) {\n  ret';
    const cut = setup(sim.tokens.production!, { ...SETTINGS, maxTokens: 4 });
    const s = await cut.ask(`${head}\n}\n`, head.length);
    assert.equal(s?.insertText, 'urn items', 'the first line, whole; not the second one cut mid-way');
    const short = setup(sim.tokens.production!, { ...SETTINGS, maxTokens: 1 });
    assert.equal(await short.ask(`${head}\n}\n`, head.length), undefined, 'cut inside the first line: nothing');
    const whole = setup(sim.tokens.production!);
    const all = await whole.ask(`${head}\n}\n`, head.length);
    assert.equal(all?.insertText, 'urn items\n    .map((i) => i.price)\n    .reduce((a, b) => a + b, 0);');
    assert.equal(sim.completionStats().answered, 3);
  } finally {
    sim.config.completions = { ...sim.config.completions, text: undefined };
  }
});
