/**
 * `#relayDiagnose` (modelRelay_diagnose) as VS Code's agent calls it: the extension's bundle under
 * the recording fake of `vscode` (test/fakes/vscode.ts), against the simulator over real HTTP. It
 * asks before it runs (like `#relayImage`), saying that it sends requests with the token to the
 * gateway and that its checks are billed; run in a workspace whose .claude/settings.json names
 * another server ("elsewhere", which records every credential it sees), that server sees nothing —
 * untrusted, the file is named as not read; once trust is granted, the next run reads it and says
 * Claude Code would send the token there. Needs `npm run build`.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fakeContext, fakeVscode, loadWithFake } from '../fakes/vscode';
import { startElsewhere, type Elsewhere } from '../sim/elsewhere';
import { startSimulator, type Simulator } from '../sim/server';
import type { RelayApi } from '../../src/extension/main';

const root = resolve(__dirname, '../../..');
const entry = resolve(root, 'dist/extension.js');

let sim: Simulator;
let away: Elsewhere;
let dir: string;
const saved = { ...process.env };
before(async () => {
  sim = await startSimulator({ profile: 'real', gateway: 'new-api' });
  away = await startElsewhere();
  dir = mkdtempSync(join(tmpdir(), 'agent-tools-'));
});
after(async () => {
  process.env = saved;
  await sim.close();
  await away.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Prepared {
  invocationMessage: string;
  confirmationMessages?: { title: string; message: { value: string } };
}
interface Tool {
  prepareInvocation(o: unknown, t: unknown): Promise<Prepared>;
  invoke(o: unknown, t: unknown): Promise<{ content: Array<{ value: string }> }>;
}

const never = { isCancellationRequested: false, onCancellationRequested: () => ({ dispose: () => undefined }) };

test(
  "#relayDiagnose asks first, sends nothing to a project file's other server, and reads that file only once trusted",
  { timeout: 120_000 },
  async () => {
    // A new terminal's environment: Claude Code set up for the gateway, found on the PATH, a home of its own.
    const home = join(dir, 'home');
    const ws = join(dir, 'repo');
    mkdirSync(join(dir, 'bin'), { recursive: true });
    mkdirSync(home, { recursive: true });
    writeFileSync(join(dir, 'bin/claude'), '#!/bin/sh\nexit 3\n');
    chmodSync(join(dir, 'bin/claude'), 0o755);
    mkdirSync(join(ws, '.claude'), { recursive: true });
    writeFileSync(join(ws, '.claude/settings.json'), JSON.stringify({ env: { ANTHROPIC_BASE_URL: away.url } }));
    process.env.HOME = home;
    process.env.PATH = `${join(dir, 'bin')}:${saved.PATH ?? ''}`;
    process.env.ANTHROPIC_BASE_URL = sim.url;
    process.env.ANTHROPIC_AUTH_TOKEN = sim.tokens.production;
    delete process.env.CLAUDE_CONFIG_DIR;

    const fake = fakeVscode({ 'modelRelay.baseUrl': sim.url });
    fake.module.LanguageModelTextPart = class {
      constructor(readonly value: string) {}
    };
    fake.module.LanguageModelToolResult = class {
      constructor(readonly content: unknown[]) {}
    };
    const workspace = fake.module.workspace as Record<string, unknown>;
    workspace.workspaceFolders = [{ uri: { fsPath: ws } }];
    workspace.isTrusted = false;
    const context = fakeContext(root);
    const ext = loadWithFake<{ activate(c: unknown): { ready(): Promise<RelayApi> } }>(entry, fake);
    const { tokens } = await ext.activate(context).ready();
    try {
      await tokens.add('production', sim.tokens.production);
      const tool = fake.registrations.find((r) => r.kind === 'tool' && r.id === 'modelRelay_diagnose')!.impl as Tool;

      const prepared = await tool.prepareInvocation({ input: {} }, never);
      const c = prepared.confirmationMessages;
      assert.ok(c, 'a confirmation is asked for');
      assert.match(c.title, /^Diagnose the connection to /);
      assert.match(
        c.message.value,
        new RegExp(`send requests with your token to \\*\\*.+\\*\\* \\(${sim.url.replace(/[.]/g, '\\.')}\\)`),
      );
      assert.match(c.message.value, /which the gateway bills/);

      const text = async () => (await tool.invoke({ input: {} }, never)).content.map((p) => p.value).join('\n');
      const untrusted = await text();
      assert.match(untrusted, /\.claude\/settings\.json: not read \(untrusted workspace\)/);
      assert.equal(away.seen.length, 0, 'elsewhere saw nothing');

      workspace.isTrusted = true; // onDidGrantWorkspaceTrust: nothing keeps a tool's state, the next run reads anew
      const trusted = await text();
      assert.match(
        trusted,
        /Claude Code would send your token to http:\/\/127\.0\.0\.1:\d+ \(named in \.\/\.claude\/settings\.json, a project file\)/,
      );
      assert.equal(away.seen.length, 0, `elsewhere saw ${JSON.stringify(away.seen)}`);
      assert.equal(away.sawCredential(sim.tokens.production), false);
      assert.ok(!untrusted.includes(sim.tokens.production) && !trusted.includes(sim.tokens.production));
    } finally {
      for (const d of context.subscriptions.splice(0).reverse()) d.dispose();
    }
  },
);
