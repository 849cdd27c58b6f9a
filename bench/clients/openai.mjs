// Whole-process bench client: the official `openai` SDK, compatible surface (see common.mjs).
import OpenAI from 'openai';
import { batchedStdout, fail, readCli } from './common.mjs';

async function main() {
  const cli = readCli();
  if (cli.surface !== 'compatible') throw new Error('the openai client speaks the compatible surface only');
  const client = new OpenAI({ baseURL: `${cli.baseUrl}/v1`, apiKey: cli.token, maxRetries: 0 });
  const stream = await client.chat.completions.create({
    model: cli.model,
    stream: true,
    messages: [{ role: 'user', content: cli.prompt }],
    ...(cli.maxTokens !== undefined ? { max_tokens: cli.maxTokens } : {}),
  });
  const out = batchedStdout();
  for await (const chunk of stream) {
    const t = chunk.choices[0]?.delta?.content;
    if (t) out.write(t);
  }
  out.end();
}

main().catch(fail);
