// Whole-process bench client: the official `@anthropic-ai/sdk`, native surface (see common.mjs).
// The gateway's native surface wants `native-version` beside the SDK's own version header.
import Anthropic from '@anthropic-ai/sdk';
import { batchedStdout, fail, readCli } from './common.mjs';

async function main() {
  const cli = readCli();
  if (cli.surface !== 'native') throw new Error('the anthropic client speaks the native surface only');
  const client = new Anthropic({
    baseURL: cli.baseUrl,
    apiKey: cli.token,
    maxRetries: 0,
    defaultHeaders: { 'native-version': '2023-06-01' },
  });
  const stream = await client.messages.create({
    model: cli.model,
    max_tokens: cli.maxTokens ?? 4096,
    stream: true,
    messages: [{ role: 'user', content: cli.prompt }],
  });
  const out = batchedStdout();
  for await (const ev of stream) {
    if (ev.type === 'content_block_delta' && ev.delta.type === 'text_delta') out.write(ev.delta.text);
  }
  out.end();
}

main().catch(fail);
