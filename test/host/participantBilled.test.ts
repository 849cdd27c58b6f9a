/**
 * `@relay` in VS Code's chat (src/extension/lm/participant.ts), run with the recording fake of `vscode`
 * against the simulator: a chat that may have been billed (a proxy's 504 page after the request was
 * read) is sent once; the reply shows the error, a warning that it may have been billed — VS Code's
 * warning part where the extension may push one, else a line with the warning icon — and one button
 * that asks the same thing again, saying it may be billed again. A refusal shows neither. An answer
 * cut by max tokens is shown with a warning that says so (the same warning part, or the icon line).
 * Needs `npm run build` (dist/extension.js, dist/main.js).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fakeContext, fakeVscode, loadWithFake } from '../fakes/vscode';
import { startSimulator, type Simulator } from '../sim/server';
import type { RelayApi } from '../../src/extension/main';

const root = resolve(__dirname, '../../..');
const entry = resolve(root, 'dist/extension.js');
let sim: Simulator;
before(async () => {
  sim = await startSimulator();
});
after(() => sim.close());

type Handler = (req: unknown, ctx: unknown, stream: unknown, token: unknown) => Promise<unknown>;
interface Said {
  markdown: string[];
  warnings: string[];
  buttons: Array<{ command: string; title: string; arguments?: unknown[] }>;
}

/** A response stream that records what the participant says; `warning`: how the proposed warning part behaves. */
function recordingStream(warning: 'absent' | 'refused' | 'works'): { stream: unknown; said: Said } {
  const said: Said = { markdown: [], warnings: [], buttons: [] };
  const stream: Record<string, unknown> = {
    markdown: (m: string | { value: string }) => said.markdown.push(typeof m === 'string' ? m : m.value),
    button: (c: Said['buttons'][number]) => said.buttons.push(c),
    progress: () => undefined,
  };
  if (warning !== 'absent')
    stream.warning = (m: string) => {
      if (warning === 'refused') throw new Error('Extension cannot use API proposal: chatParticipantAdditions');
      said.warnings.push(m);
    };
  return { stream, said };
}

const token = { isCancellationRequested: false, onCancellationRequested: () => ({ dispose: () => undefined }) };

test('@relay: a chat that may have been billed is sent once, warned about, and offered as "Retry (may be billed again)"', async () => {
  assert.ok(existsSync(entry), 'dist/ is missing: run "npm run build" first');
  const fake = fakeVscode({ 'modelRelay.baseUrl': sim.url, 'modelRelay.models.chat': 'gpt-4o-mini' });
  const context = fakeContext(root);
  const ext = loadWithFake<{ activate(c: unknown): { ready(): Promise<RelayApi> } }>(entry, fake);
  const { tokens } = await ext.activate(context).ready();
  try {
    await tokens.add('production', sim.tokens.production);
    const handler = fake.registrations.find((r) => r.kind === 'participant')!.impl as Handler;
    for (const warning of ['absent', 'refused', 'works'] as const) {
      sim.reset();
      sim.fault({ kind: 'proxyPage', path: '/v1/chat/completions' });
      const { stream, said } = recordingStream(warning);
      await handler({ prompt: 'hello there', command: undefined }, {}, stream, token);
      assert.equal(sim.log.filter((l) => l.path === '/v1/chat/completions').length, 1, `${warning}: sent once`);
      assert.match(said.markdown[0] ?? '', /HTTP 504/, 'the error first');
      const warned = warning === 'works' ? said.warnings : said.markdown.slice(1);
      assert.equal(warned.length, 1, warning);
      assert.match(warned[0], /may have reached the gateway and been charged.*Asking again may be billed again\./s);
      if (warning !== 'works')
        assert.match(warned[0], /\$\(warning\)/, 'the icon line where no warning part may be pushed');
      assert.deepEqual(said.buttons, [
        {
          command: 'workbench.action.chat.open',
          title: 'Retry (may be billed again)',
          arguments: [{ query: '@relay hello there' }],
        },
      ]);
    }

    // A refusal in the gateway's own words was not billed: the error only.
    sim.reset();
    sim.fault({ kind: 'status', status: 400, path: '/v1/chat/completions' });
    const { stream, said } = recordingStream('works');
    await handler({ prompt: 'hello there', command: undefined }, {}, stream, token);
    assert.match(said.markdown.join(''), /HTTP 400/);
    assert.deepEqual([said.warnings, said.buttons], [[], []]);
  } finally {
    for (const d of context.subscriptions.splice(0).reverse()) d.dispose();
  }
});

test('@relay: an answer cut by max tokens is shown, with a warning that says so', async () => {
  const fake = fakeVscode({
    'modelRelay.baseUrl': sim.url,
    'modelRelay.models.chat': 'gpt-4o-mini',
    'modelRelay.maxTokens': 3,
  });
  const context = fakeContext(root);
  const ext = loadWithFake<{ activate(c: unknown): { ready(): Promise<RelayApi> } }>(entry, fake);
  const { tokens } = await ext.activate(context).ready();
  sim.config.replyText = 'one two three four five six';
  try {
    await tokens.add('production', sim.tokens.production);
    const handler = fake.registrations.find((r) => r.kind === 'participant')!.impl as Handler;
    for (const warning of ['absent', 'works'] as const) {
      sim.reset();
      const { stream, said } = recordingStream(warning);
      await handler({ prompt: 'count', command: undefined }, {}, stream, token);
      const text = said.markdown.join('');
      assert.match(text, /^one two three/);
      const words = 'the answer was cut by the output budget (max tokens 3).';
      if (warning === 'works') assert.deepEqual(said.warnings, [words]);
      else assert.ok(text.endsWith(`$(warning) ${words}`), text);
    }
    sim.reset();
    sim.config.replyText = 'one';
    const { stream, said } = recordingStream('works');
    await handler({ prompt: 'count', command: undefined }, {}, stream, token);
    assert.deepEqual(said.warnings, [], 'a whole answer: no warning');
  } finally {
    sim.config.replyText = undefined;
    for (const d of context.subscriptions.splice(0).reverse()) d.dispose();
  }
});
