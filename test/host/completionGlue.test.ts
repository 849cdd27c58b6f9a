/**
 * Inline suggestions' plain-Node glue (issue 25): where an item goes on the cursor's line (it keeps
 * showing while the user types into it; with the suggest widget open it extends the widget's item),
 * the status bar's words per engine state with the last hour's figures (both languages), the one
 * notice (the cap reached), Choose Completion Model's list (text models, fill-in-the-middle first,
 * priced), and the settings: the completion model per gateway, the engine's settings as read.
 */
import { test, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { useTranslations, type Translations } from '../../src/gateway';
import { lineItem } from '../../src/host/completions/inlineItem';
import {
  completionDetails,
  completionMenu,
  completionStatusWords,
  noticeFor,
  type CompletionFacts,
} from '../../src/host/completions/statusText';
import { completionModelEntries } from '../../src/host/completions/modelPick';
import {
  COMPLETION_DEFAULTS,
  completionSettings,
  perTokenPrice,
  withCompletionModel,
} from '../../src/host/completions/completionSettings';
import { parseSettings, relaySettings, type SettingKey } from '../../src/host/gateways/settingsSchema';
import { settingsFor } from '../../src/host/gateways/gatewayList';
import { systemClock } from '../../src/host/completions/clock';
import type { EngineState, HourStats } from '../../src/host/completions/types';

const root = resolve(__dirname, '../../..');
const chinese = Object.assign(
  {},
  ...readdirSync(join(root, 'l10n/zh-cn'))
    .filter((f) => f.endsWith('.json'))
    .map((f) => JSON.parse(readFileSync(join(root, 'l10n/zh-cn', f), 'utf8')) as Translations),
) as Translations;

afterEach(() => useTranslations(undefined));

test('an item replaces the line up to the cursor with the typed text plus the suggestion, so typing into it keeps it', () => {
  const line = '  const total = sum(';
  const item = lineItem(line, line.length, 'a, b);');
  assert.deepEqual(item, { insertText: '  const total = sum(a, b);', startCharacter: 0, endCharacter: line.length });
  // the user types "a," — the item still starts with everything on the line before the cursor
  const typed = '  const total = sum(a,';
  assert.ok(item!.insertText.startsWith(typed));
  // text after the cursor stays (the range ends at the cursor)
  const mid = lineItem('foo()', 4, 'x');
  assert.deepEqual(mid, { insertText: 'foo(x', startCharacter: 0, endCharacter: 4 });
  // multi-line suggestions: still one range on the cursor's line
  assert.equal(lineItem('if (a) {', 8, '\n  b();\n}')!.endCharacter, 8);
  assert.equal(lineItem('x', 1, ''), undefined, 'nothing to show');
});

test("with the suggest widget open the item takes the widget's range, its text the widget's item plus the completion", () => {
  const line = '  console.lo';
  const item = lineItem(line, line.length, "log('done');", { startCharacter: 10, endCharacter: 12 });
  assert.deepEqual(item, { insertText: "log('done');", startCharacter: 10, endCharacter: 12 });
  assert.equal(lineItem(line, 5, 'x', { startCharacter: 10, endCharacter: 12 }), undefined);
});

const stats = (o: Partial<HourStats> = {}): HourStats => ({
  requests: 12,
  aborted: 5,
  cacheHits: 4,
  shown: 9,
  accepted: 3,
  tokens: 4200,
  ...o,
});
const facts = (state: EngineState, o: Partial<CompletionFacts> = {}): CompletionFacts => ({
  state,
  stats: stats(),
  model: 'deepseek-chat',
  unit: 'USD',
  trusted: true,
  enabledHere: true,
  ...o,
});
const cap: EngineState = {
  kind: 'paused-cap',
  cause: 'The cap of $1.00 per hour is reached.',
  fix: 'Wait or raise it.',
};
const failing: EngineState = { kind: 'paused-error', cause: 'The gateway answered 401.', fix: 'Add a valid token.' };

test('the status bar: off, on with its model, paused with its cause, capped; the last hour in the tooltip', () => {
  assert.match(completionStatusWords(facts({ kind: 'off' }, { enabledHere: false })).text, /Suggestions: off/);
  assert.match(
    completionStatusWords(facts({ kind: 'off' })).text,
    /no gateway/,
    'on, with a model, but the engine has no client',
  );
  assert.match(completionStatusWords(facts({ kind: 'on' }, { enabledHere: false })).text, /Suggestions: off/);
  const on = completionStatusWords(facts({ kind: 'on' }, { stats: stats({ cost: 0.0042 }) }));
  assert.equal(on.text, '$(sparkle) Suggestions: deepseek-chat');
  assert.equal(on.look, undefined);
  assert.ok(
    on.tooltip.includes('In the last hour: 12 requests, 3 suggestions accepted, $0.0042.'),
    on.tooltip.join('\n'),
  );
  assert.ok(on.tooltip.includes('5 cancelled by more typing, 4 served from the cache, 9 shown.'));
  // no price known: tokens instead of money
  assert.ok(
    completionStatusWords(facts({ kind: 'on' }, { unit: undefined })).tooltip.includes(
      'In the last hour: 12 requests (4200 tokens), 3 suggestions accepted.',
    ),
  );
  const paused = completionStatusWords(facts(failing));
  assert.match(paused.text, /^\$\(warning\) Suggestions: paused$/);
  assert.equal(paused.look, 'statusBarItem.errorBackground');
  assert.ok(paused.tooltip.includes(failing.cause) && paused.tooltip.includes(failing.fix));
  const capped = completionStatusWords(facts(cap));
  assert.match(capped.text, /Suggestions: capped/);
  assert.equal(capped.look, 'statusBarItem.warningBackground');
  const noModel = completionStatusWords(facts({ kind: 'on' }, { model: undefined }));
  assert.match(noModel.text, /no model/);
  assert.match(completionStatusWords(facts({ kind: 'on' }, { trusted: false })).text, /untrusted/);
});

test('Show Inline Suggestion Status: the cause and the fix when paused; what to do when off, untrusted or without a model', () => {
  assert.deepEqual(completionDetails(facts(failing)), {
    summary: 'Inline suggestions are paused.',
    cause: failing.cause,
    fix: failing.fix,
  });
  assert.match(completionDetails(facts({ kind: 'on' }, { enabledHere: false })).fix!, /Toggle Inline Suggestions/);
  assert.match(completionDetails(facts({ kind: 'on' }, { trusted: false })).cause!, /not trusted/);
  assert.match(completionDetails(facts({ kind: 'on' }, { model: '' })).fix!, /Choose Completion Model/);
  assert.equal(completionDetails(facts({ kind: 'on' })).summary, 'Inline suggestions are on with deepseek-chat.');
});

test('the click menu: toggle, resume only after a failing gateway (not at the cap), choose the model (the current one named), status', () => {
  const actions = (f: CompletionFacts) => completionMenu(f).map((e) => e.action);
  assert.deepEqual(actions(facts({ kind: 'on' })), ['toggle', 'chooseModel', 'status']);
  assert.deepEqual(actions(facts(cap)), ['toggle', 'chooseModel', 'status']);
  assert.deepEqual(actions(facts(failing)), ['toggle', 'resume', 'chooseModel', 'status']);
  assert.match(completionMenu(facts({ kind: 'on' }))[0].label, /Turn Off/);
  assert.match(completionMenu(facts({ kind: 'on' }, { enabledHere: false }))[0].label, /Turn On/);
  assert.equal(completionMenu(facts({ kind: 'on' }))[1].description, 'deepseek-chat');
});

test('one notice: when the cap is reached, not again while capped, never for a failing gateway', () => {
  assert.equal(noticeFor({ kind: 'on' }, cap), 'cap');
  assert.equal(noticeFor(cap, cap), undefined);
  assert.equal(noticeFor({ kind: 'on' }, failing), undefined);
  assert.equal(noticeFor(cap, { kind: 'on' }), undefined);
});

test('the status words in Chinese are whole translated sentences', () => {
  useTranslations(chinese);
  const on = completionStatusWords(facts({ kind: 'on' }, { stats: stats({ cost: 0.5 }) }));
  for (const line of [on.text, ...on.tooltip]) assert.doesNotMatch(line, /Suggestions|In the last hour|cancelled/);
  for (const e of completionMenu(facts(failing))) assert.doesNotMatch(e.label, /[A-Z][a-z]+ [A-Z]/);
  assert.doesNotMatch(completionDetails(facts({ kind: 'off' }, { enabledHere: false })).summary, /Inline/);
});

test('Choose Completion Model: text models only, fill-in-the-middle first, each with its price, the current one checked', () => {
  const entries = completionModelEntries(
    [
      { id: 'gpt-4o-mini', capabilities: ['chat'] },
      { id: 'gpt-image-1', capabilities: ['image'] },
      { id: 'deepseek-chat', capabilities: ['chat'] },
      { id: 'mystery' },
    ],
    {
      mode: (id) => (id.startsWith('deepseek') ? 'fim' : 'chat'),
      price: (id) => (id === 'deepseek-chat' ? '$0.27 in / $1.10 out per 1M tokens' : undefined),
      current: 'gpt-4o-mini',
    },
  );
  assert.deepEqual(
    entries.map((e) => [e.label, e.description]),
    [
      ['deepseek-chat', 'fill-in-the-middle · $0.27 in / $1.10 out per 1M tokens'],
      ['$(check) gpt-4o-mini', 'chat request'],
      ['mystery', 'chat request'],
    ],
  );
});

test('the completion model per gateway: modelRelay.completions.model for the one made from the old settings, models.completion for listed ones', () => {
  const values: Partial<Record<SettingKey, unknown>> = {
    baseUrl: 'https://relay.example.com',
    'completions.model': ' deepseek-chat ',
    gateways: [{ id: 'cn', name: 'CN', baseUrl: 'https://cn.example.com', models: { completion: 'qwen-coder' } }],
  };
  const s = relaySettings(parseSettings((k) => values[k]));
  assert.equal(settingsFor(s, s.gateways[0]).models.completion, 'deepseek-chat');
  assert.equal(settingsFor(s, s.gateways[1]).models.completion, 'qwen-coder');
  assert.deepEqual(s.completions.exclude, COMPLETION_DEFAULTS.exclude);
  assert.equal(s.completions.maxCostPerHour, 1);
  const off = relaySettings(parseSettings((k) => ({ 'completions.maxCostPerHour': null })[k as string]));
  assert.equal(off.completions.maxCostPerHour, null, 'null: no money cap');
});

test('Choose Completion Model writes the listed gateway its model, keeping every other entry and field as written', () => {
  const raw = [
    { id: 'a', name: 'A', baseUrl: 'https://a', models: { chat: 'gpt-4o' }, future: 1 },
    { id: 'b', name: 'B', baseUrl: 'https://b' },
  ];
  assert.deepEqual(withCompletionModel(raw, 'a', 'deepseek-chat'), [
    { id: 'a', name: 'A', baseUrl: 'https://a', models: { chat: 'gpt-4o', completion: 'deepseek-chat' }, future: 1 },
    raw[1],
  ]);
  assert.deepEqual(withCompletionModel(raw, 'b', 'x')![1], {
    id: 'b',
    name: 'B',
    baseUrl: 'https://b',
    models: { completion: 'x' },
  });
  const cleared = withCompletionModel([{ id: 'b', models: { completion: 'x' } }], 'b', '');
  assert.deepEqual(cleared, [{ id: 'b' }]);
  assert.equal(withCompletionModel(raw, 'default', 'x'), undefined, 'not listed: modelRelay.completions.model');
  assert.equal(withCompletionModel(undefined, 'a', 'x'), undefined);
});

test("the engine's settings: no model is undefined, no money cap is undefined, blank exclusions dropped; prices per token", () => {
  const s = completionSettings(
    { ...COMPLETION_DEFAULTS, exclude: ['**/.env*', ' ', 'secrets/**'], maxCostPerHour: null },
    { enabled: true, model: '  ', trusted: false },
  );
  assert.equal(s.model, undefined);
  assert.equal(s.maxCostPerHour, undefined);
  assert.deepEqual(s.exclude, ['**/.env*', 'secrets/**']);
  assert.equal(s.trusted, false);
  assert.deepEqual(perTokenPrice({ input: 0.27, output: 1.1 }), { input: 0.27e-6, output: 1.1e-6 });
  assert.equal(perTokenPrice({ input: 1, output: 2, dynamic: true }), undefined, 'tiered: unknown');
  assert.equal(perTokenPrice({}), undefined, 'per call: unknown');
});

test('the real clock: sleep resolves after its time and rejects at once with an AbortError when aborted', async () => {
  const t0 = systemClock.now();
  await systemClock.sleep(20);
  assert.ok(systemClock.now() - t0 >= 15);
  const ac = new AbortController();
  const p = systemClock.sleep(10_000, ac.signal);
  ac.abort();
  await assert.rejects(p, { name: 'AbortError' });
  await assert.rejects(systemClock.sleep(5, ac.signal), { name: 'AbortError' });
});
