/**
 * The simulator's terminal-tool routes over real HTTP, as each tool sends them: Gemini CLI's
 * `/v1beta/models/{model}:streamGenerateContent?alt=sse` with `x-goog-api-key` (new-api serves it, one-api
 * has no /v1beta, the strict profile answers Google's error shapes), and Claude Code's
 * `/v1/messages?beta=true` with its headers and `/v1/messages/count_tokens` (no such route on new-api).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { credentialDigest, startSimulator, type Simulator } from './server';

const sims = {} as { newApi: Simulator; oneApi: Simulator; strict: Simulator };
before(async () => {
  sims.newApi = await startSimulator({ profile: 'real', gateway: 'new-api' });
  sims.oneApi = await startSimulator({ profile: 'real', gateway: 'one-api' });
  sims.strict = await startSimulator({ profile: 'strict' });
});
after(async () => {
  for (const s of Object.values(sims)) await s.close();
});

/** Wire JSON under test: read freely, the assertions check it. */
type Json = Record<string, any>;

async function post(sim: Simulator, path: string, headers: Record<string, string>, body: Json) {
  const r = await request(`${sim.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: r.statusCode, headers: r.headers, text: await r.body.text() };
}

const geminiBody = {
  contents: [{ role: 'user', parts: [{ text: 'say ok' }] }],
  generationConfig: { maxOutputTokens: 8 },
};
const streamPath = (model: string) => `/v1beta/models/${model}:streamGenerateContent?alt=sse`;

test('new-api: a Gemini model is listed with endpoint types gemini and openai', async () => {
  const r = await request(`${sims.newApi.url}/v1/models`, {
    headers: { authorization: `Bearer ${sims.newApi.tokens.production}` },
  });
  const list = ((await r.body.json()) as Json).data as Json[];
  assert.deepEqual(list.find((m) => m.id === 'gemini-2.5-flash')?.supported_endpoint_types, ['gemini', 'openai']);
});

test("new-api: Gemini CLI's streamed request is answered with GenerateContentResponse chunks and usageMetadata", async () => {
  const sim = sims.newApi;
  sim.reset();
  const key = sim.tokens.production;
  const r = await post(sim, streamPath('gemini-2.5-flash'), { 'x-goog-api-key': key }, geminiBody);
  assert.equal(r.status, 200, r.text);
  assert.match(String(r.headers['content-type']), /text\/event-stream/);
  const chunks = r.text
    .split('\n\n')
    .filter(Boolean)
    .map((f) => JSON.parse(f.replace(/^data: /, '')) as Json);
  assert.equal(chunks.map((c) => c.candidates[0].content.parts[0].text).join(''), 'Echo: say ok');
  assert.equal(chunks.at(-1)!.candidates[0].finishReason, 'STOP');
  assert.equal(chunks[0].candidates[0].finishReason, undefined);
  assert.equal(chunks.at(-1)!.usageMetadata.candidatesTokenCount, 3);
  assert.equal(chunks.at(-1)!.modelVersion, 'gemini-2.5-flash');
  const rec = sim.log.at(-1)!;
  assert.equal(rec.path, '/v1beta/models/gemini-2.5-flash:streamGenerateContent');
  assert.equal(rec.headers['x-goog-api-key'], 'sk-Pr0...Lk5d');
  assert.equal(rec.tokenName, 'production');
  assert.ok(sim.credentials.includes(credentialDigest(key)));
  // Non-streamed, with the key in the query: one response.
  const once = await post(sim, `/v1beta/models/gemini-2.5-flash:generateContent?key=${key}`, {}, geminiBody);
  assert.equal(once.status, 200, once.text);
  assert.equal(JSON.parse(once.text).candidates[0].content.parts[0].text, 'Echo: say ok');
  // Cut by maxOutputTokens.
  const cut = await post(
    sim,
    '/v1beta/models/gemini-2.5-flash:generateContent',
    { 'x-goog-api-key': key },
    {
      ...geminiBody,
      generationConfig: { maxOutputTokens: 1 },
    },
  );
  assert.equal(JSON.parse(cut.text).candidates[0].finishReason, 'MAX_TOKENS');
});

test('new-api: Gemini routes refuse in new-api words: 401 invalid token, 503 no channel, 500 not implemented', async () => {
  const sim = sims.newApi;
  const bad = await post(sim, streamPath('gemini-2.5-flash'), { 'x-goog-api-key': 'sk-nope' }, geminiBody);
  assert.equal(bad.status, 401);
  assert.deepEqual(JSON.parse(bad.text).error.type, 'new_api_error');
  const none = await post(sim, streamPath('gemini-2.5-flash'), {}, geminiBody);
  assert.equal(none.status, 401);
  const outside = await post(
    sim,
    streamPath('gemini-2.5-flash'),
    { 'x-goog-api-key': sim.tokens['native-cli'] },
    geminiBody,
  );
  assert.equal(outside.status, 503);
  assert.equal(JSON.parse(outside.text).error.code, 'model_not_found');
  const claude = await post(
    sim,
    streamPath('claude-sonnet-4-5'),
    { 'x-goog-api-key': sim.tokens.production },
    geminiBody,
  );
  assert.equal(claude.status, 500);
  assert.equal(JSON.parse(claude.text).error.code, 'convert_request_failed');
  // An OpenAI channel's chat model is converted.
  const converted = await post(sim, streamPath('gpt-4o-mini'), { 'x-goog-api-key': sim.tokens.production }, geminiBody);
  assert.equal(converted.status, 200, converted.text);
  const empty = await post(sim, streamPath('gemini-2.5-flash'), { 'x-goog-api-key': sim.tokens.production }, {});
  assert.equal(empty.status, 400);
});

test('one-api has no /v1beta: the console page answers', async () => {
  const sim = sims.oneApi;
  const r = await post(sim, streamPath('gemini-2.5-flash'), { 'x-goog-api-key': sim.tokens.production }, geminiBody);
  assert.equal(r.status, 200);
  assert.match(String(r.headers['content-type']), /text\/html/);
});

test("strict: Google's error shapes (400 API_KEY_INVALID, 403 without a key, 404 for an unknown model) and CRLF frames", async () => {
  const sim = sims.strict;
  const bad = await post(sim, streamPath('gemini-2.5-flash'), { 'x-goog-api-key': 'sk-nope' }, geminiBody);
  assert.equal(bad.status, 400);
  assert.equal(JSON.parse(bad.text).error.status, 'INVALID_ARGUMENT');
  assert.equal(JSON.parse(bad.text).error.details[0].reason, 'API_KEY_INVALID');
  const none = await post(sim, streamPath('gemini-2.5-flash'), {}, geminiBody);
  assert.equal(none.status, 403);
  assert.equal(JSON.parse(none.text).error.status, 'PERMISSION_DENIED');
  const unknown = await post(sim, streamPath('gemini-9'), { 'x-goog-api-key': sim.tokens.production }, geminiBody);
  assert.equal(unknown.status, 404);
  assert.equal(JSON.parse(unknown.text).error.status, 'NOT_FOUND');
  const ok = await post(sim, streamPath('gemini-2.5-flash'), { 'x-goog-api-key': sim.tokens.production }, geminiBody);
  assert.equal(ok.status, 200);
  assert.ok(ok.text.includes('\r\n\r\n'));
});

test("new-api: Claude Code's /v1/messages?beta=true with its headers and a Bearer token; count_tokens is no route", async () => {
  const sim = sims.newApi;
  sim.reset();
  const headers = {
    authorization: `Bearer ${sim.tokens.production}`,
    'anthropic-version': '2023-06-01',
    'anthropic-beta': 'claude-code-20250219,interleaved-thinking-2025-05-14',
    'x-app': 'cli',
    'user-agent': 'claude-cli/2.1.240 (external, cli)',
  };
  const body = { model: 'claude-sonnet-4-5', max_tokens: 4, stream: true, messages: [{ role: 'user', content: 'hi' }] };
  const r = await post(sim, '/v1/messages?beta=true', headers, body);
  assert.equal(r.status, 200, r.text);
  assert.match(r.text, /event: message_stop/);
  assert.equal(sim.log.at(-1)!.path, '/v1/messages');
  assert.equal(sim.log.at(-1)!.headers['anthropic-beta'], headers['anthropic-beta']);
  const count = await post(sim, '/v1/messages/count_tokens?beta=true', headers, body);
  assert.equal(count.status, 404);
  assert.equal(JSON.parse(count.text).error.message, 'Invalid URL (POST /v1/messages/count_tokens)');
});
