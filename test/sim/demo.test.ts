/**
 * The simulator's demo replies (`replies: 'demo'`, used by `npm start` / `npm run sim`), read by the
 * official `openai` and `@anthropic-ai/sdk` clients: streamed and not, the text is the markdown demo
 * (heading, bold, list, table, fenced code) quoting the prompt, in the prompt's language, and the
 * usage is consistent with its length. Echo stays the default.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { startSimulator, type Simulator } from './server';
import { demoPieces, demoReply, promptLanguage, quoteOf } from './demo';

const sims: Partial<Record<'strict' | 'real' | 'echo', Simulator>> = {};
before(async () => {
  sims.strict = await startSimulator({ profile: 'strict', replies: 'demo' });
  sims.real = await startSimulator({ profile: 'real', replies: 'demo' });
  sims.echo = await startSimulator({ profile: 'strict' });
});
after(async () => {
  await Promise.all(Object.values(sims).map((s) => s.close()));
});

const openai = (sim: Simulator) =>
  new OpenAI({ baseURL: `${sim.url}/v1`, apiKey: sim.tokens.production, maxRetries: 0, timeout: 20_000 });
const anthropic = (sim: Simulator) =>
  new Anthropic({
    baseURL: sim.url,
    apiKey: sim.tokens.production,
    maxRetries: 0,
    timeout: 20_000,
    defaultHeaders: { 'native-version': '2023-06-01' },
  });

const EN_PROMPT = 'How do I stream a chat completion through my gateway?';
const ZH_PROMPT = '怎样通过我的网关流式调用聊天接口？请给个例子。';

/** The markdown a demo reply must hold: a heading, bold, a bullet list, a table and a fenced code block. */
function assertMarkdown(text: string): void {
  assert.match(text, /^### \S/m, 'a heading');
  assert.match(text, /\*\*[^*\n]+\*\*/, 'bold');
  assert.ok((text.match(/^- \S/gm) ?? []).length >= 3, 'a bullet list');
  assert.match(text, /^\| .+ \|\n\| --- \| --- \| --- \|\n(\| .+ \|\n){2}/m, 'a table');
  assert.match(text, /^```ts\n[\s\S]+?\n```$/m, 'a fenced code block');
}

/** Usage consistent with the text: ~4 characters a token for English, ~1.5 Han characters for Chinese. */
function assertUsage(text: string, outputTokens: number, lang: 'en' | 'zh'): void {
  const han = (text.match(/\p{Script=Han}/gu) ?? []).length;
  const rest = [...text.replace(/\p{Script=Han}/gu, '')].length;
  const expected = (lang === 'zh' ? han / 1.5 : 0) + rest / 4 + (lang === 'en' ? han / 1.5 : 0);
  assert.ok(
    outputTokens > expected * 0.6 && outputTokens < expected * 1.6,
    `output tokens ${outputTokens} for ~${Math.round(expected)} expected (${han} Han, ${rest} other characters)`,
  );
}

test('language: mainly Chinese prose (code aside) gets Chinese, anything else English', () => {
  assert.equal(promptLanguage(EN_PROMPT), 'en');
  assert.equal(promptLanguage(ZH_PROMPT), 'zh');
  assert.equal(
    promptLanguage('解释这段代码\n```ts\nfunction parseEventStream(input: string): Event[] { return [] }\n```'),
    'zh',
  );
  assert.equal(promptLanguage('解释这个 function'), 'zh');
  assert.equal(promptLanguage('What does 令牌 mean in new-api?'), 'en');
  assert.equal(promptLanguage(''), 'en');
  assert.equal(quoteOf('**Fix** `x` in this | table\nsecond line', 60), 'Fix in this table');
  assert.equal(quoteOf('a'.repeat(80), 60), `${'a'.repeat(60)}…`);
});

test('pieces: join back to the text exactly, token-sized in both languages', () => {
  for (const text of [
    demoReply(EN_PROMPT, { model: 'gpt-4o-mini', native: false }),
    demoReply(ZH_PROMPT, { model: 'claude-sonnet-4-5', native: true }),
    '  lead and trail  ',
    '',
  ]) {
    const pieces = demoPieces(text);
    assert.equal(pieces.join(''), text);
    assert.ok(pieces.every((p) => p.trim().length <= 4));
  }
  assert.deepEqual(demoPieces('网关令牌额度'), ['网', '关令', '牌', '额度']);
});

for (const profile of ['strict', 'real'] as const) {
  const sim = () => sims[profile]!;

  test(`${profile}: openai chat.completions, English prompt → English markdown demo, streamed and not`, async () => {
    const client = openai(sim());
    const r = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: EN_PROMPT },
      ],
    });
    const text = r.choices[0].message.content!;
    assertMarkdown(text);
    assert.ok(text.includes(`“${EN_PROMPT}”`), 'quotes the prompt');
    assert.match(text, /gpt-4o-mini/);
    assert.ok(!/\p{Script=Han}/u.test(text), 'English only');
    assertUsage(text, r.usage!.completion_tokens, 'en');
    assert.ok(r.usage!.prompt_tokens >= 10 && r.usage!.prompt_tokens <= 30, `prompt tokens ${r.usage!.prompt_tokens}`);

    const stream = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: EN_PROMPT }],
    });
    let streamed = '';
    let chunks = 0;
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream) {
      chunks++;
      streamed += chunk.choices[0]?.delta?.content ?? '';
      if (chunk.usage) usage = chunk.usage;
    }
    assert.equal(streamed, text, 'the stream assembles to the same markdown');
    assert.ok(chunks > 50, `${chunks} chunks`);
    assert.ok(usage, 'usage in the final chunk');
    assert.equal(usage.completion_tokens, r.usage!.completion_tokens);
    assert.equal(usage.total_tokens, usage.prompt_tokens + usage.completion_tokens);
  });

  test(`${profile}: anthropic messages, Chinese prompt → Chinese markdown demo, streamed and not`, async () => {
    const client = anthropic(sim());
    const m = await client.messages.create({
      model: 'claude-sonnet-4-5',
      max_tokens: 2048,
      messages: [{ role: 'user', content: ZH_PROMPT }],
    });
    const block = m.content[0];
    assert.equal(block.type, 'text');
    const text = block.type === 'text' ? block.text : '';
    assertMarkdown(text);
    assert.ok(text.includes(`「${ZH_PROMPT}」`), 'quotes the prompt');
    assert.match(text, /演示回答/);
    assert.match(text, /\/v1\/messages/);
    assertUsage(text, m.usage.output_tokens, 'zh');
    assert.ok(
      m.usage.input_tokens >= 15 && m.usage.input_tokens <= 25,
      `input tokens ${m.usage.input_tokens} for ${ZH_PROMPT.length} characters`,
    );

    const stream = client.messages.stream({
      model: 'claude-sonnet-4-5',
      max_tokens: 2048,
      messages: [{ role: 'user', content: ZH_PROMPT }],
    });
    let streamed = '';
    let deltas = 0;
    stream.on('text', (t) => {
      deltas++;
      streamed += t;
    });
    const final = await stream.finalMessage();
    assert.equal(streamed, text, 'the stream assembles to the same markdown');
    assert.ok(deltas > 50, `${deltas} text deltas`);
    assert.equal(final.usage.output_tokens, m.usage.output_tokens, 'usage in message_delta');
    assert.equal(final.stop_reason, 'end_turn');
  });

  test(`${profile}: the other pairings — Chinese on the compatible surface, English on the native one`, async () => {
    const r = await openai(sim()).chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: ZH_PROMPT }],
    });
    const zh = r.choices[0].message.content!;
    assertMarkdown(zh);
    assert.match(zh, /OpenAI 兼容接口/);
    assertUsage(zh, r.usage!.completion_tokens, 'zh');
    const m = await anthropic(sim()).messages.create({
      model: 'claude-sonnet-4-5',
      max_tokens: 2048,
      messages: [{ role: 'user', content: [{ type: 'text', text: EN_PROMPT }] }],
    });
    const en = m.content[0].type === 'text' ? m.content[0].text : '';
    assertMarkdown(en);
    assert.match(en, /Anthropic-native/);
    assertUsage(en, m.usage.output_tokens, 'en');
  });
}

test('max_tokens cuts the demo reply at that many tokens (finish_reason length)', async () => {
  const r = await openai(sims.strict!).chat.completions.create({
    model: 'gpt-4o-mini',
    max_tokens: 20,
    messages: [{ role: 'user', content: EN_PROMPT }],
  });
  assert.equal(r.choices[0].finish_reason, 'length');
  assert.equal(r.usage!.completion_tokens, 20);
  assert.ok(demoReply(EN_PROMPT, { model: 'gpt-4o-mini', native: false }).startsWith(r.choices[0].message.content!));
});

test('echo stays the default replies', async () => {
  const r = await openai(sims.echo!).chat.completions.create({
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: ZH_PROMPT }],
  });
  assert.equal(r.choices[0].message.content, `Echo: ${ZH_PROMPT}`);
});
