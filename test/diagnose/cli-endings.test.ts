/**
 * `relay-doctor chat` says how an answer ended (issue 38 §3): an answer the output budget cut prints
 * its text, a line on stderr and exits 4 — on each surface (compatible `finish_reason: "length"`,
 * native `stop_reason: "max_tokens"`, Responses `response.incomplete` with `max_output_tokens`, the
 * simulator cuts at max tokens), streamed and not, over one gateway or a gateways file; a content
 * filter exits 5, any other finish reason 6; a whole answer exits 0 with no line. The codes are in
 * --help.
 */
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main, usage } from '../../src/cli/main';
import { chatEnding } from '../../src/cli/output';
import { startSimulator, type Simulator } from '../sim/server';

let sim: Simulator;
let dir: string;
before(async () => {
  sim = await startSimulator({ profile: 'strict' });
  dir = await mkdtemp(join(tmpdir(), 'relay-doctor-endings-'));
});
after(async () => {
  await sim.close();
  await rm(dir, { recursive: true, force: true });
});
const WORDS = Array.from({ length: 40 }, (_, i) => `w${i}`);
beforeEach(() => {
  sim.reset();
  sim.config.replyText = WORDS.join(' ');
});

async function run(args: string[], env: Record<string, string> = {}) {
  let out = '';
  let err = '';
  const code = await main({
    argv: args,
    env: { MODEL_RELAY_BASE_URL: sim.url, MODEL_RELAY_TOKEN: sim.tokens.production, ...env },
    cwd: dir,
    stdout: { write: (s: string) => (out += s), isTTY: false },
    stderr: { write: (s: string) => (err += s), isTTY: false },
  });
  return { code, out, err };
}

const models = { compatible: 'gpt-4o-mini', native: 'claude-sonnet-4-5', responses: 'gpt-4o-mini' } as const;

for (const surface of ['compatible', 'native', 'responses'] as const)
  for (const stream of [true, false])
    test(`chat --surface ${surface}${stream ? '' : ' --no-stream'}: cut by max tokens → the text, a line on stderr, exit 4`, async () => {
      const args = ['chat', '--surface', surface, '--model', models[surface], '--max-tokens', '16'];
      const r = await run([...args, ...(stream ? [] : ['--no-stream']), 'go']);
      assert.equal(r.code, 4, r.err);
      assert.ok(r.out.startsWith(WORDS.slice(0, 4).join(' ')), r.out);
      assert.ok(!r.out.includes(WORDS.at(-1)!), 'the answer was cut');
      assert.match(r.err, /^relay-doctor: the answer was cut by the output budget \(max tokens 16\)\.$/m);
      const whole = await run(['chat', '--surface', surface, '--model', models[surface], '--max-tokens', '200', 'go']);
      assert.equal(whole.code, 0, whole.err);
      assert.equal(whole.out, `${WORDS.join(' ')}\n`);
      assert.doesNotMatch(whole.err, /answer/);
    });

test('chat over a gateways file: a cut answer says so and exits 4 too (streamed and not)', async () => {
  const file = join(dir, 'gateways.json');
  await writeFile(
    file,
    JSON.stringify({
      gateways: [{ id: 'g', name: 'Gee', baseUrl: sim.url, models: { chat: 'gpt-4o-mini' }, tokenEnv: 'G_TOKEN' }],
    }),
  );
  for (const extra of [[], ['--no-stream']]) {
    const r = await run(['chat', '--gateways', file, '--gateway', 'Gee', '--max-tokens', '16', ...extra, 'go'], {
      MODEL_RELAY_BASE_URL: '',
      MODEL_RELAY_TOKEN: '',
      G_TOKEN: sim.tokens.production,
    });
    assert.equal(r.code, 4, r.err);
    assert.match(r.err, /^relay-doctor: the answer was cut by the output budget \(max tokens 16\)\.$/m);
    assert.match(r.err, /answered by gateway "Gee"/);
  }
});

test('each ending that is not complete has its own exit code (the simulator has no content filter: the rule itself)', () => {
  assert.deepEqual(chatEnding('stop', 16), { code: 0 });
  assert.deepEqual(chatEnding(undefined, undefined), { code: 0 });
  assert.deepEqual(chatEnding('length', undefined), {
    code: 4,
    line: 'relay-doctor: the answer was cut by the output budget (max tokens).\n',
  });
  assert.deepEqual(chatEnding('content_filter', 16), {
    code: 5,
    line: "relay-doctor: the answer was stopped by the gateway's content filter.\n",
  });
  assert.equal(chatEnding('refusal', 16).code, 5);
  assert.deepEqual(chatEnding('pause_turn', 16), {
    code: 6,
    line: 'relay-doctor: the answer did not end normally (finish reason "pause_turn").\n',
  });
  const codes = [
    0,
    1,
    2,
    3,
    chatEnding('length', 1).code,
    chatEnding('content_filter', 1).code,
    chatEnding('x', 1).code,
  ];
  assert.equal(new Set(codes).size, codes.length, 'no two meanings share a code');
  const help = usage();
  assert.match(help, /4 .*output budget/);
  assert.match(help, /5 .*content filter/);
  assert.match(help, /6 .*finish reason/);
});

test('chat --surface responses --max-tokens 2: sent as 16 (the least the surface takes), said on stderr; the ending names the 16 sent', async () => {
  for (const extra of [[], ['--no-stream']]) {
    const r = await run([
      'chat',
      '--surface',
      'responses',
      '--model',
      'gpt-4o-mini',
      '--max-tokens',
      '2',
      ...extra,
      'go',
    ]);
    assert.equal(r.code, 4, r.err);
    assert.match(r.err, /^relay-doctor: max_output_tokens was sent as 16: what gpt-4o-mini accepts\.$/m);
    assert.match(r.err, /^relay-doctor: the answer was cut by the output budget \(max tokens 16\)\.$/m);
    assert.deepEqual(
      sim.log.filter((x) => x.path === '/v1/responses').map((x) => x.status),
      [200],
      'sent once, never refused',
    );
    sim.reset();
    sim.config.replyText = WORDS.join(' ');
  }
});
