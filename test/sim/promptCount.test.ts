/**
 * The simulated upstream's prompt count (promptCount.ts) over real HTTP, on every surface that serves an
 * OpenAI model: the OpenAI cookbook's `num_tokens_from_messages` in o200k_base (relay-receipts.md §7.1) —
 * 3 per message + its role + its text (+ its name + 1), + 3 for the reply priming — of the request as
 * new-api converts it; Claude and the other families still count words.
 * Expected values are summed by hand from o200k counts of each piece (every role is 1 token):
 *   "You are a terse assistant." 6 · "Summarise the receipts of yesterday, please." 10 · "alice" 1 ·
 *   "Keep it short." 4 · "What changed since then?" 5 · "You are a terse assistant. Reply in English." 10 ·
 *   "Hello there, gateway!" 5 · "It is sunny." 4 · "Be brief." 3 · "Count these words for me." 6 ·
 *   "Reply in English." 4 · "一致 / 不一致 / 无法核对" 9 · '{"city":"Paris"}' 5 · "a <|endoftext|> b" 9.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { defaultConfig, startSimulator, type Profile, type SimConfig, type Simulator } from './server';
import { useBothProfiles } from './profiles';
import { demoTokens } from './demo';
import { defaultUsageLog } from './usageLog';

/** An OpenAI model served on /v1/messages too (new-api converts it), named with a vendor prefix. */
const PREFIXED = 'openai/gpt-4.1';
const withPrefixed = (profile: Profile): Partial<SimConfig> => {
  const base = defaultConfig(profile);
  const model = { id: PREFIXED, capabilities: ['native', 'chat'], ownedBy: 'openai', ratio: 1, completionRatio: 4 };
  return {
    models: [...base.models, { ...model, capabilities: ['native', 'chat'], enableGroups: ['default'] }],
    groups: base.groups.map((g) =>
      g.name === 'default'
        ? { ...g, visible: [...g.visible, PREFIXED], usable: [...(g.usable ?? g.visible), PREFIXED] }
        : g,
    ),
    usageLog: { ...defaultUsageLog(), delayMs: 0 },
  };
};
const sims = useBothProfiles(withPrefixed);
const PROFILES: Profile[] = ['strict', 'real'];

/** Wire JSON under test: read freely, the assertions check it. */
type Json = Record<string, any>;

async function post(sim: Simulator, path: string, body: Json): Promise<Json> {
  const headers = path.startsWith('/v1/messages')
    ? { 'x-api-key': sim.tokens.production, 'native-version': '2023-06-01' }
    : path.startsWith('/v1beta/')
      ? { 'x-goog-api-key': sim.tokens.production }
      : { authorization: `Bearer ${sim.tokens.production}` };
  const r = await request(`${sim.url}${path}`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await r.body.text();
  assert.equal(r.statusCode, 200, text);
  return JSON.parse(text) as Json;
}

const CHAT = [
  { role: 'system', content: 'You are a terse assistant.' },
  { role: 'user', name: 'alice', content: 'Summarise the receipts of yesterday, please.' },
  { role: 'assistant', content: 'Keep it short.' },
  {
    role: 'user',
    content: [
      { type: 'text', text: 'What changed ' },
      { type: 'text', text: 'since then?' },
    ],
  },
];
/** system 3+1+6, alice's 3+1+10 with her name 1+1, assistant 3+1+4, the parts joined 3+1+5; priming 3 */
const CHAT_O200K = 3 + 1 + 6 + (3 + 1 + 10 + 1 + 1) + (3 + 1 + 4) + (3 + 1 + 5) + 3;
/** the words of each content, + 3 */
const CHAT_WORDS = 5 + 6 + 3 + 4 + 3;

const chatPrompt = async (sim: Simulator, model: string, messages: Json[] = CHAT) =>
  (await post(sim, '/v1/chat/completions', { model, messages })).usage.prompt_tokens as number;

for (const profile of PROFILES) {
  test(`${profile}: /v1/chat/completions counts an o200k model's messages as sent, with the cookbook's framing`, async () => {
    assert.equal(CHAT_O200K, 46);
    assert.equal(await chatPrompt(sims.of(profile), 'gpt-4o-mini'), CHAT_O200K);
    assert.equal(await chatPrompt(sims.of(profile), PREFIXED), CHAT_O200K, 'a vendor prefix is ignored');
    const developer = [{ role: 'developer', content: 'Be brief.' }, ...CHAT.slice(1)];
    assert.equal(await chatPrompt(sims.of(profile), 'gpt-4o-mini', developer), CHAT_O200K - 6 + 3);
    // A special token's text is text to the API: counted, not refused.
    const special = [{ role: 'user', content: 'a <|endoftext|> b' }];
    assert.equal(await chatPrompt(sims.of(profile), 'gpt-4o-mini', special), 3 + 1 + 9 + 3);
  });

  test(`${profile}: a Claude model still counts words (its tokenizer is not public)`, async () => {
    assert.equal(await chatPrompt(sims.of(profile), 'claude-sonnet-4-5'), CHAT_WORDS);
    const native = await post(sims.of(profile), '/v1/messages', {
      model: 'claude-sonnet-4-5',
      max_tokens: 64,
      system: 'You are a terse assistant.',
      messages: [{ role: 'user', content: 'Hello there, gateway!' }],
    });
    assert.equal(native.usage.input_tokens, 5 + 3 + 3);
  });
}

const NATIVE = {
  max_tokens: 64,
  system: [
    { type: 'text', text: 'You are a terse assistant.' },
    { type: 'text', text: ' Reply in English.' },
  ],
  messages: [
    { role: 'user', content: 'Hello there, gateway!' },
    { role: 'assistant', content: [{ type: 'text', text: 'It is sunny.' }] },
    { role: 'user', content: 'Be brief.' },
  ],
};

for (const profile of PROFILES)
  test(`${profile}: /v1/messages on an o200k model counts system as one system message first, then each message`, async () => {
    const r = await post(sims.of(profile), '/v1/messages', { model: PREFIXED, ...NATIVE });
    assert.equal(r.usage.input_tokens, 3 + 1 + 10 + (3 + 1 + 5) + (3 + 1 + 4) + (3 + 1 + 3) + 3);
    const claude = await post(sims.of(profile), '/v1/messages', { model: 'claude-sonnet-4-5', ...NATIVE });
    assert.equal(claude.usage.input_tokens, 8 + 3 + 3 + 2 + 3, 'the same request on Claude: words');
  });

const tool = { type: 'function', name: 'get_weather', parameters: { type: 'object', properties: {} }, strict: false };

for (const profile of PROFILES)
  test(`${profile}: /v1/responses counts instructions as a system message first, then each input message with its role`, async () => {
    const prompt = async (body: Json) =>
      (await post(sims.of(profile), '/v1/responses', { model: 'gpt-5-mini', ...body })).usage.input_tokens as number;
    const plain = { instructions: 'Be brief.', input: 'Count these words for me.' };
    assert.equal(await prompt(plain), 3 + 1 + 3 + (3 + 1 + 6) + 3);
    const items = [
      { role: 'developer', content: 'Reply in English.' },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: '一致 / 不一致 / 无法核对' }] },
    ];
    assert.equal(await prompt({ input: items }), 3 + 1 + 4 + (3 + 1 + 9) + 3);
    // A function call's arguments and its output are text too, counted bare.
    const turn = [
      { role: 'user', content: 'Count these words for me.' },
      { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { type: 'function_call_output', call_id: 'call_1', output: 'It is sunny.' },
    ];
    assert.equal(await prompt({ input: turn, tools: [tool] }), 3 + 1 + 6 + 5 + 4 + 3);
  });

test("real: Gemini's generateContent on an OpenAI model counts systemInstruction and contents as chat messages", async () => {
  const body = {
    systemInstruction: { parts: [{ text: 'Be brief.' }] },
    contents: [{ role: 'user', parts: [{ text: 'Count these words for me.' }] }],
  };
  const converted = await post(sims.real, '/v1beta/models/gpt-4o-mini:generateContent', body);
  assert.equal(converted.usageMetadata.promptTokenCount, 3 + 1 + 3 + (3 + 1 + 6) + 3);
  const gemini = await post(sims.real, '/v1beta/models/gemini-2.5-flash:generateContent', body);
  assert.equal(gemini.usageMetadata.promptTokenCount, 2 + 5 + 3, 'a Gemini model: words');
});

test('real: a dishonest gateway inflates the o200k count, and the usage log records what it billed', async () => {
  const sim = sims.real;
  sim.config.dishonest = { systemPromptTokens: 20, inflatePrompt: { share: 0.1, inResponse: true } };
  const usage = (await post(sim, '/v1/chat/completions', { model: 'gpt-4o-mini', messages: CHAT })).usage;
  const billed = Math.round((CHAT_O200K + 20) * 1.1);
  assert.equal(billed, 73);
  assert.equal(usage.prompt_tokens, billed);
  const r = await request(`${sim.url}/api/log/token`, {
    headers: { authorization: `Bearer ${sim.tokens.production}` },
  });
  const [record] = ((await r.body.json()) as Json).data as Json[];
  assert.equal(record.prompt_tokens, billed);
});

test("demo replies: an o200k model's prompt is still counted in o200k, a Claude model's in demo pieces", async () => {
  const sim = await startSimulator({ replies: 'demo' });
  try {
    assert.equal(await chatPrompt(sim, 'gpt-4o-mini'), CHAT_O200K);
    const pieces = CHAT.reduce(
      (n, m) => n + demoTokens(typeof m.content === 'string' ? m.content : 'What changed since then?'),
      0,
    );
    assert.equal(await chatPrompt(sim, 'claude-sonnet-4-5'), pieces + 3);
  } finally {
    await sim.close();
  }
});
