/**
 * A chat reply's receipt (src/host/chat/chatView.ts, receiptWords.ts) over real HTTP against the
 * simulator: the reply wants its receipt when it ends, and shows its line once the receipt source has it
 * (after a read of the gateway's own usage log) — consistent with the price list; inconsistent in the
 * warning kind with the check's sentence; a recorded redirect as a route finding, apart from billing.
 * A reloaded chat keeps what finds the receipt (never the receipt) and finds it again. The receipt
 * source here is a small one built on the core's own reconcile() over a read of the simulator's log,
 * so the words are the real receipt's; the usage room's book is the real one.
 */
import { after, before, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { overallState, type ReceiptCall, type Receipt } from '../../src/gateway';
import { ChatView, RECEIPT_REPLIES, RECEIPT_WAIT_MS } from '../../src/host/chat/chatView';
import { STATE_KEY, type SavedChat } from '../../src/host/chat/chatStore';
import { sessionModels } from '../../src/host/chat/modelTraits';
import type { ChatBackend } from '../../src/host/chat/session';
import type { CallReceipt, ReceiptQuery, ReceiptSource } from '../../src/host/usage/receiptSource';
import type { ChatEntry, ChatReceipt, HostToWebview } from '../../src/shared/chatProtocol';
import type { Dishonesty } from '../sim/accounting';
import { startSimulator, type Simulator } from '../sim/server';
import { defaultUsageLog } from '../sim/usageLog';
import { InMemoryMemento } from '../fakes/state';
import { makeClient, type TestClient } from '../gateway/helpers';
import { callsOf, receipts } from '../gateway/receiptsFixture';
import { imageFiles, oneGateway, opts, T } from './helpers';

let sim: Simulator;
before(async () => {
  sim = await startSimulator({ profile: 'real' });
});
after(() => sim.close());
beforeEach(() => {
  sim.reset();
  sim.config.usageLog = { ...defaultUsageLog(), delayMs: 0, vintage: 'NA26' };
  sim.config.dishonest = undefined;
});

/** Receipts as the usage room's book gives them, from one read of the gateway's log per `read()`. */
class LogReceipts implements ReceiptSource {
  readonly wanted: ReceiptQuery[] = [];
  private byCall = new Map<ReceiptCall, Receipt>();
  private readonly listeners = new Set<() => void>();
  constructor(private readonly tc: TestClient) {}

  /** One read of the log: the receipts of the calls made so far, then the listeners are told. */
  async read(): Promise<void> {
    this.byCall = (await receipts(sim, this.tc, callsOf(this.tc.records))).byCall;
    for (const l of this.listeners) l();
  }

  find(q: ReceiptQuery): CallReceipt | undefined {
    const call = [...this.byCall.keys()].find((c) => (q.requestId ? c.requestId === q.requestId : c.model === q.model));
    const receipt = call && this.byCall.get(call);
    return receipt && { receipt, billing: overallState(receipt.billing), route: overallState(receipt.route) };
  }

  want(q: ReceiptQuery): void {
    this.wanted.push(q);
  }

  onDidChange(listener: () => void) {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }
}

interface Rig {
  view: ChatView;
  posted: HostToWebview[];
  state: InMemoryMemento;
  source: LogReceipts;
  tc: TestClient;
}

function rig(
  o: { state?: InMemoryMemento; tc?: TestClient; source?: LogReceipts | null; now?: () => number } = {},
): Rig {
  const tc = o.tc ?? makeClient(sim);
  const backend: ChatBackend = { chat: (req) => tc.client.chat(req), chatStream: (req) => tc.client.chatStream(req) };
  const state = o.state ?? new InMemoryMemento();
  const source = o.source === null ? new LogReceipts(tc) : (o.source ?? new LogReceipts(tc));
  const posted: HostToWebview[] = [];
  const list = () => oneGateway([], { compatible: 'gpt-4o-mini', native: 'claude-sonnet-4-5' });
  const settings = {
    defaultSurface: 'compatible' as const,
    models: { chat: 'gpt-4o-mini', native: 'claude-sonnet-4-5' },
    temperature: 0.5,
    maxTokens: 256,
    stream: true,
  };
  const view = new ChatView({
    backend,
    state,
    files: imageFiles(),
    settings: () => settings,
    models: sessionModels({ overrides: () => ({}), list }),
    modelList: list,
    post: (msg) => posted.push(JSON.parse(JSON.stringify(msg)) as HostToWebview),
    src: () => undefined,
    receipts: o.source === null ? undefined : source,
    now: o.now,
  });
  view.webviewReady();
  return { view, posted, state, source, tc };
}

/** Sends a message and waits for its reply to end. */
async function ask(r: Rig, text: string): Promise<ChatEntry> {
  const ends = r.posted.filter((m) => m.type === 'busy' && !m.busy).length;
  r.view.send(text, opts('compatible'));
  const started = Date.now();
  while (r.posted.filter((m) => m.type === 'busy' && !m.busy).length === ends) {
    if (Date.now() - started > 15_000) throw new Error('waited for the reply');
    await new Promise((res) => setTimeout(res, 10));
  }
  return r.view.entries.at(-1)!;
}

/** The receipt last posted with entry `id`. */
const posted = (r: Rig, id: string): ChatReceipt | undefined =>
  r.posted
    .flatMap((m) => (m.type === 'entryUpdated' && m.entry.id === id ? [m.entry.receipt] : []))
    .filter(Boolean)
    .at(-1);

/** The real receipt of the reply (what the line must say). */
const real = (r: Rig, e: ChatEntry) => r.source.find(e.call!)!.receipt;

const VERDICT = /verified|genuine|authentic|fraud|overcharged|cheat/i;

test(
  'a reply wants its receipt when it ends, and shows its line once the gateway log is read: consistent with the price list, the whole receipt under it',
  T,
  async () => {
    const r = rig();
    const reply = await ask(r, 'hello there');
    assert.equal(reply.status, 'done');
    assert.equal(r.source.wanted.length, 1, 'one wish, for the reply');
    assert.deepEqual(r.source.wanted[0], reply.call);
    assert.ok(reply.call?.requestId, 'the reply keeps its request id');
    assert.equal(posted(r, reply.id), undefined, 'no line before the record is found');

    await r.source.read();
    const shown = posted(r, reply.id);
    assert.ok(shown, 'the reply is posted again with its receipt');
    const receipt = real(r, reply);
    const listedAt = receipt.billing.find((c) => c.id === 'price-list')!.inputs.price_list_read_at;
    assert.equal(shown.line, `Receipt: ${receipt.charge.text} charged · consistent with the price list of ${listedAt}`);
    assert.equal(shown.kind, 'ok');
    assert.deepEqual(shown.warnings, []);
    const rows = Object.fromEntries(shown.sections.flatMap((s) => s.rows).map((row) => [row.label, row]));
    assert.equal(rows['Requested model'].value, 'gpt-4o-mini');
    assert.equal(rows['Billed model'].value, 'gpt-4o-mini');
    assert.match(rows.Match.value, /matched by request id/);
    assert.equal(rows.Charge.value, `${receipt.charge.quota} quota (${receipt.charge.text})`);
    assert.deepEqual(
      shown.sections.map((s) => s.title),
      ["The gateway's record", 'Billing checks', 'Route (which model, which relay)'],
    );
    assert.deepEqual(
      shown.sections[1].rows.map((row) => [row.value, row.check?.state]),
      receipt.billing.map((c) => [c.text, c.state]),
    );
    assert.equal(rows['Price list'].check?.text, 'consistent');
    assert.match(shown.disclaimer, /^No relay can currently prove which model served a request/);
    assert.doesNotMatch(JSON.stringify(shown), VERDICT);
    // the receipt goes to the page, never into the saved chat
    const saved = r.state.get<SavedChat>(STATE_KEY)!.entries as ChatEntry[];
    assert.equal(saved.at(-1)!.receipt, undefined);
    r.view.dispose();
  },
);

async function receiptWith(dishonest: Dishonesty): Promise<{ r: Rig; reply: ChatEntry; shown: ChatReceipt }> {
  sim.config.dishonest = dishonest;
  const r = rig();
  const reply = await ask(r, 'hello there');
  await r.source.read();
  const shown = posted(r, reply.id);
  assert.ok(shown);
  return { r, reply, shown };
}

test(
  'a higher ratio than published: the line says inconsistent, in the warning kind, with the check’s sentence naming the witness',
  T,
  async () => {
    const { r, reply, shown } = await receiptWith({ overcharge: { factor: 1.5, recorded: 'charged' } });
    const receipt = real(r, reply);
    assert.equal(shown.kind, 'warning');
    assert.equal(shown.line, `Receipt: ${receipt.charge.text} charged · inconsistent according to the gateway's log`);
    assert.equal(shown.warnings.length, 1);
    assert.match(
      shown.warnings[0],
      /^According to the gateway's log, the ratios applied differ from the price list as of .+: model_ratio ×0\.1125 \(listed ×0\.075\)\.$/,
    );
    const priceList = shown.sections[1].rows.find((row) => row.label === 'Price list')!;
    assert.deepEqual(priceList.check, { state: 'inconsistent', text: 'inconsistent' });
    assert.doesNotMatch(JSON.stringify(shown), VERDICT);
    r.view.dispose();
  },
);

test(
  'a recorded model redirect is a route finding: billing stays consistent, the warning names the model the record says it went to',
  T,
  async () => {
    const { r, shown } = await receiptWith({ mapModels: { 'gpt-4o-mini': 'gpt-4o-mini-lite' } });
    assert.match(shown.line, / charged · consistent with the price list of /);
    assert.equal(shown.kind, 'warning');
    assert.equal(shown.warnings.length, 1);
    assert.match(shown.warnings[0], /gpt-4o-mini-lite/);
    const rows = shown.sections.flatMap((s) => s.rows);
    assert.equal(rows.find((row) => row.label === "Upstream model (the gateway's record)")?.value, 'gpt-4o-mini-lite');
    assert.equal(shown.sections[2].rows.find((row) => row.label === 'Model redirect')?.check?.state, 'inconsistent');
    assert.ok(
      shown.sections[1].rows.every((row) => row.check?.state !== 'inconsistent'),
      'billing apart from route',
    );
    r.view.dispose();
  },
);

test(
  'a reloaded chat keeps what finds its receipts (never a receipt) and shows them again; a recent one still missing is wanted again',
  T,
  async () => {
    const first = rig();
    const reply = await ask(first, 'hello there');
    first.view.dispose();
    const saved = (first.state.get<SavedChat>(STATE_KEY)!.entries as ChatEntry[]).at(-1)!;
    assert.deepEqual(saved.call, reply.call);
    assert.deepEqual(Object.keys(saved.call!).sort(), ['host', 'model', 'requestId', 'time']);

    // reloaded before the log was read: the reply's call is wanted again
    const again = rig({ state: first.state, tc: first.tc });
    assert.deepEqual(again.source.wanted, [reply.call]);
    assert.equal(posted(again, reply.id), undefined);
    await again.source.read();
    assert.match(posted(again, reply.id)?.line ?? '', /^Receipt: .+ charged · consistent with the price list of /);
    again.view.dispose();

    // reloaded with the receipt known: shown with the first state the page gets
    const third = rig({ state: first.state, tc: first.tc, source: again.source });
    const init = third.posted.find((m) => m.type === 'init');
    assert.ok(init?.type === 'init');
    assert.equal(init.state.entries.at(-1)!.receipt?.line, posted(again, reply.id)?.line);
    third.view.dispose();
  },
);

test('a chat without a receipt source: the reply keeps its call, no line is ever posted', T, async () => {
  const r = rig({ source: null });
  const reply = await ask(r, 'hello there');
  assert.ok(reply.call?.requestId);
  await new LogReceipts(r.tc).read();
  assert.ok(r.posted.every((m) => !('entry' in m) || m.entry.receipt === undefined));
  r.view.dispose();
});

test(
  'bounded: a reloaded chat asks for the newest replies only, and only for a while after they were made',
  T,
  async () => {
    const made = Date.parse('2026-06-01T14:00:00Z');
    const replies: ChatEntry[] = Array.from({ length: RECEIPT_REPLIES + 5 }, (_, i) => ({
      id: `a${i}`,
      role: 'assistant' as const,
      text: `reply ${i}`,
      createdAt: made + i * 1000,
      status: 'done' as const,
      model: 'gpt-4o-mini',
      call: { time: new Date(made + i * 1000).toISOString(), model: 'gpt-4o-mini', requestId: `req-${i}`, host: 'h' },
    }));
    const entries = replies.flatMap((e) => [
      { id: `u${e.id}`, role: 'user' as const, text: 'q', createdAt: e.createdAt },
      e,
    ]);
    const state = new InMemoryMemento();
    await state.update(STATE_KEY, { entries } satisfies SavedChat);
    const soon = rig({ state, now: () => made + 60_000 });
    assert.deepEqual(
      soon.source.wanted.map((q) => q.requestId),
      replies.slice(-RECEIPT_REPLIES).map((e) => e.call!.requestId),
    );
    soon.view.dispose();
    const late = rig({ state, now: () => made + RECEIPT_WAIT_MS + 60_000 });
    assert.deepEqual(late.source.wanted, [], 'too old to wait for');
    late.view.dispose();
  },
);
