// Whole-process bench client: bare undici `request` + eventsource-parser, both surfaces (see common.mjs).
import { request } from 'undici';
import { createParser } from 'eventsource-parser';
import { batchedStdout, fail, readCli } from './common.mjs';

async function main() {
  const cli = readCli();
  const native = cli.surface === 'native';
  const body = { model: cli.model, stream: true, messages: [{ role: 'user', content: cli.prompt }] };
  if (cli.maxTokens !== undefined) body.max_tokens = cli.maxTokens;
  const headers = native
    ? { 'content-type': 'application/json', 'x-api-key': cli.token, 'native-version': '2023-06-01' }
    : { 'content-type': 'application/json', authorization: `Bearer ${cli.token}` };
  const res = await request(`${cli.baseUrl}${native ? '/v1/messages' : '/v1/chat/completions'}`, {
    method: 'POST',
    headers,
    body: JSON.stringify(body),
  });
  if (res.statusCode !== 200) throw new Error(`HTTP ${res.statusCode}: ${await res.body.text()}`);
  const out = batchedStdout();
  const parser = createParser({
    onEvent: native
      ? (ev) => {
          const j = JSON.parse(ev.data);
          if (j.type === 'content_block_delta' && j.delta?.type === 'text_delta') out.write(j.delta.text);
          else if (j.type === 'error') throw new Error(j.error?.message);
        }
      : (ev) => {
          if (ev.data === '[DONE]') return;
          const j = JSON.parse(ev.data);
          if (j.error) throw new Error(j.error.message);
          const t = j.choices?.[0]?.delta?.content;
          if (t) out.write(t);
        },
  });
  const decoder = new TextDecoder();
  for await (const chunk of res.body) parser.feed(decoder.decode(chunk, { stream: true }));
  out.end();
}

main().catch(fail);
