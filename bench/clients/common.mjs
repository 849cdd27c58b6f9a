// The CLI contract every whole-process bench client shares with `relay-doctor chat`:
//   <client> chat --surface compatible|native --model M [--max-tokens N] "prompt"
// configured by MODEL_RELAY_BASE_URL (root address) and MODEL_RELAY_TOKEN, writing the reply's text
// to stdout in 16 KB batches (the same batching relay-doctor uses), a newline at the end, exit 0.
import { parseArgs } from 'node:util';

export function readCli() {
  const { values, positionals } = parseArgs({
    args: process.argv.slice(2),
    options: { surface: { type: 'string' }, model: { type: 'string' }, 'max-tokens': { type: 'string' } },
    allowPositionals: true,
  });
  const [command, ...prompt] = positionals;
  if (command !== 'chat' || !values.model || !prompt.length) {
    process.stderr.write('usage: chat --surface compatible|native --model M [--max-tokens N] "prompt"\n');
    process.exit(2);
  }
  const baseUrl = process.env.MODEL_RELAY_BASE_URL;
  const token = process.env.MODEL_RELAY_TOKEN;
  if (!baseUrl || !token) {
    process.stderr.write('MODEL_RELAY_BASE_URL and MODEL_RELAY_TOKEN must be set\n');
    process.exit(2);
  }
  const maxTokens = values['max-tokens'] === undefined ? undefined : Number(values['max-tokens']);
  return {
    surface: values.surface ?? 'compatible',
    model: values.model,
    maxTokens,
    prompt: prompt.join(' '),
    baseUrl: baseUrl.replace(/\/+$/, ''),
    token,
  };
}

const LIMIT = 16 * 1024;

/** stdout in 16 KB writes: `write` collects, `end` flushes the rest and the closing newline. */
export function batchedStdout() {
  let buf = '';
  let wrote = false;
  return {
    write(s) {
      buf += s;
      wrote = true;
      if (buf.length >= LIMIT) {
        process.stdout.write(buf);
        buf = '';
      }
    },
    end() {
      process.stdout.write(wrote ? `${buf}\n` : buf);
      buf = '';
    },
  };
}

export function fail(e) {
  process.stderr.write(`error: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exitCode = 1;
}
