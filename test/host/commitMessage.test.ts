/**
 * Generate Commit Message's host half (src/host/commitMessage/, src/host/pathExclusions.ts), as tables:
 * which paths the secret exclusions catch; what a diff becomes within its token budget (excluded files
 * named without their hunks, lock files summarised, headers kept, small files whole, large ones cut
 * with a note); the style read from recent subjects; the reply cleaned for the input box; the model
 * chosen. Then the stream into the box through the real GatewayClient against the simulator: the
 * message arrives in pieces, Cancel closes the request and puts the draft back, typing into the box
 * stops it and keeps what was typed, a failure puts the draft back and throws.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { startSimulator, type Simulator } from '../sim/server';
import { makeClient } from '../gateway/helpers';
import { DEFAULT_EXCLUDE, PathExclusions } from '../../src/host/pathExclusions';
import { budgetDiff, cutWords, parseDiff } from '../../src/host/commitMessage/diffBudget';
import { detectStyle, styleRules } from '../../src/host/commitMessage/commitStyle';
import {
  cleanMessage,
  commitModel,
  commitPrompt,
  commitRequest,
  commitSurface,
} from '../../src/host/commitMessage/commitPrompt';
import { streamMessage, type MessageSink } from '../../src/host/commitMessage/streamMessage';
import { estimateTokens } from '../../src/host/lm/tokenEstimate';
import { commitMessageReply } from '../sim/demo';
import { GatewayError } from '../../src/gateway';

test('exclusions: the default list catches keys, certificates, env files and .git, at any depth; nothing else', () => {
  const ex = new PathExclusions(DEFAULT_EXCLUDE);
  const table: Array<[string, string | undefined]> = [
    ['.env', '**/.env*'],
    ['.env.local', '**/.env*'],
    ['config/.env.production', '**/.env*'],
    ['certs/server.pem', '**/*.pem'],
    ['deploy\\tls\\SERVER.KEY', '**/*.key'],
    ['home/.ssh/id_rsa', '**/id_rsa*'],
    ['id_rsa.pub', '**/id_rsa*'],
    ['.git/config', '**/.git/**'],
    ['vendor/lib/.git/HEAD', '**/.git/**'],
    ['src/env.ts', undefined],
    ['src/keyboard.ts', undefined],
    ['.gitignore', undefined],
    ['docs/pem-format.md', undefined],
    ['README.md', undefined],
  ];
  for (const [path, pattern] of table) assert.equal(ex.match(path), pattern, path);
  // The same list written VS Code's way (`**/` in front) excludes the same paths.
  const vscodeWay = new PathExclusions(DEFAULT_EXCLUDE.map((g) => (g.startsWith('**/') ? g : `**/${g}`)));
  for (const [path, pattern] of table) assert.equal(vscodeWay.excludes(path), pattern !== undefined, `**/ ${path}`);
});

test('exclusions: anchored patterns, folders, alternatives, character classes', () => {
  const table: Array<[string, string, boolean]> = [
    ['secrets/**', 'secrets/a/b.txt', true],
    ['secrets/**', 'app/secrets/a.txt', false],
    ['**/secrets/**', 'app/secrets/a.txt', true],
    ['build/', 'build/out.js', true],
    ['*.{crt,p12}', 'x/y/cert.p12', true],
    ['*.{crt,p12}', 'cert.p13', false],
    ['key[0-9].txt', 'key7.txt', true],
    ['key[0-9].txt', 'keyA.txt', false],
    ['/top.txt', 'top.txt', true],
    ['/top.txt', 'sub/top.txt', false],
    ['a?c', 'abc', true],
    ['a?c', 'a/c', false],
  ];
  for (const [glob, path, hit] of table)
    assert.equal(new PathExclusions([glob]).excludes(path), hit, `${glob} ~ ${path}`);
});

/** One file's diff: `lines` added lines of `width` characters each (a modified file unless `mode` says otherwise). */
function fileDiff(
  path: string,
  lines: number,
  opts: { mode?: 'new' | 'deleted'; context?: number; width?: number } = {},
) {
  const head = [`diff --git a/${path} b/${path}`];
  if (opts.mode === 'new') head.push('new file mode 100644');
  if (opts.mode === 'deleted') head.push('deleted file mode 100644');
  head.push('index 1111111..2222222 100644');
  head.push(opts.mode === 'new' ? '--- /dev/null' : `--- a/${path}`);
  head.push(opts.mode === 'deleted' ? '+++ /dev/null' : `+++ b/${path}`);
  const body: string[] = [`@@ -1,${opts.context ?? 0} +1,${lines} @@`];
  for (let i = 0; i < (opts.context ?? 0); i++) body.push(` context line ${i} of ${path}`);
  const word = 'x'.repeat(Math.max(1, (opts.width ?? 40) - 20));
  for (let i = 0; i < lines; i++) body.push(`${opts.mode === 'deleted' ? '-' : '+'}line ${i} ${word} ${path}`);
  return [...head, ...body].join('\n');
}

test('parse: files, paths (quoted, renamed), +/− counts, binary', () => {
  const diff = [
    fileDiff('src/a.ts', 3),
    'diff --git "a/docs/caf\\303\\251.md" "b/docs/caf\\303\\251.md"',
    'index 1..2 100644',
    '--- "a/docs/caf\\303\\251.md"',
    '+++ "b/docs/caf\\303\\251.md"',
    '@@ -1 +1 @@',
    '-old',
    '+new',
    'diff --git a/old.ts b/new.ts',
    'similarity index 90%',
    'rename from old.ts',
    'rename to new.ts',
    'diff --git a/logo.png b/logo.png',
    'Binary files a/logo.png and b/logo.png differ',
    '',
  ].join('\n');
  const files = parseDiff(diff);
  assert.deepEqual(
    files.map((f) => [f.path, f.oldPath, f.added, f.removed, f.binary]),
    [
      ['src/a.ts', undefined, 3, 0, false],
      ['docs/café.md', undefined, 1, 1, false],
      ['new.ts', 'old.ts', 0, 0, false],
      ['logo.png', undefined, 0, 0, true],
    ],
  );
  assert.ok(!files[0].header.some((l) => l.startsWith('index ')), 'the index line is dropped');
});

test('budget: an excluded file is named, its hunks never sent; a renamed secret too; a lock file is summarised', () => {
  const secret = 'API_KEY=sk-live-1234567890';
  const diff = [
    fileDiff('src/app.ts', 2),
    ['diff --git a/.env b/.env', '--- a/.env', '+++ b/.env', '@@ -1 +1 @@', '-API_KEY=old', `+${secret}`].join('\n'),
    ['diff --git a/key.pem b/cert.txt', 'rename from key.pem', 'rename to cert.txt', '@@ -1 +1 @@', '+BEGIN'].join(
      '\n',
    ),
    fileDiff('package-lock.json', 50),
  ].join('\n');
  const b = budgetDiff(diff, new PathExclusions(DEFAULT_EXCLUDE));
  assert.ok(!b.text.includes(secret) && !b.text.includes('BEGIN'), 'no excluded line is sent');
  assert.match(
    b.text,
    /diff --git a\/\.env b\/\.env\n\(contents not sent: the file matches the exclusion "\*\*\/\.env\*"\)/,
  );
  assert.deepEqual(b.cut.excluded, [
    { path: '.env', pattern: '**/.env*' },
    { path: 'cert.txt', pattern: '**/*.pem' },
  ]);
  assert.deepEqual(b.cut.summarised, ['package-lock.json']);
  assert.ok(!b.text.includes('line 3 '), 'the lock file lines are not sent');
  assert.match(b.text, /\+line 1 x+ src\/app\.ts/, 'the ordinary file is whole');
  assert.deepEqual(b.cut.partial, []);
  assert.match(
    cutWords(b.cut).join(' '),
    /Not sent \(they match modelRelay\.completions\.exclude\): \.env, cert\.txt\./,
  );
});

test('budget: within the budget, every file keeps its header and count; small files whole; the large one cut, saying so', () => {
  const diff = [fileDiff('small1.ts', 3), fileDiff('big.ts', 2000, { context: 30 }), fileDiff('small2.ts', 4)].join(
    '\n',
  );
  const budget = 1500;
  const b = budgetDiff(diff, new PathExclusions([]), budget);
  assert.ok(b.cut.tokens <= budget, `${b.cut.tokens} tokens ≤ ${budget}`);
  for (const f of ['small1.ts', 'big.ts', 'small2.ts']) assert.match(b.text, new RegExp(`diff --git a/${f} b/${f}`));
  assert.match(b.text, /\(\+2000 −0 lines\)/, "the big file's count");
  for (let i = 0; i < 3; i++) assert.ok(b.text.includes(`+line ${i} `) && b.text.includes('small1.ts'));
  assert.ok(b.text.includes('+line 3 x') && /small2\.ts\n?/.test(b.text), 'small2 whole');
  assert.deepEqual(b.cut.partial, ['big.ts']);
  assert.doesNotMatch(b.text, /context line 5 of big/, 'context lines go first');
  assert.match(b.text, /… \(\d+ more lines of this hunk not shown\)/);
  assert.ok(b.text.includes('+line 100 '), 'the large file still gets a fair share');
  assert.match(cutWords(b.cut).join(' '), /shortened to about \d+ tokens: 1 of 3 files in part, 0 only counted/);
});

test('budget: with more files than the budget can name, the rest are counted in one line', () => {
  const diff = Array.from({ length: 400 }, (_, i) => fileDiff(`pkg/module${i}/file${i}.ts`, 1)).join('\n');
  const b = budgetDiff(diff, new PathExclusions([]), 2000);
  assert.ok(b.cut.omitted.length > 0 && b.cut.omitted.length < 400);
  assert.match(
    b.text,
    new RegExp(`… \\(${b.cut.omitted.length} more files not shown: \\+${b.cut.omitted.length} −0 lines\\)$`),
  );
  assert.ok(estimateTokens(b.text) <= 2000 + b.text.split('\n').length);
});

test('budget: a diff within the budget is sent as it is (less the index lines)', () => {
  const diff = fileDiff('a.ts', 5);
  const b = budgetDiff(diff, new PathExclusions([]));
  assert.equal(b.text, diff.replace(/^index .*\n/m, '').replace(/(\+\+\+ b\/a\.ts)\n/, '$1\n(+5 −0 lines)\n'));
  assert.deepEqual(cutWords(b.cut), []);
});

test('style: conventional with scopes, plain capitalised, Chinese, gitmoji, bodies, no history', () => {
  const conv = detectStyle([
    'feat(api): add retry to uploads',
    'fix(ui): keep the caret when the list redraws',
    "Merge branch 'main' into dev",
    'feat(cli): print the version',
    'docs: explain the budget',
  ]);
  assert.deepEqual(
    [conv.conventional, conv.scoped, conv.types, conv.capitalized, conv.language, conv.basis],
    [true, true, ['feat', 'fix', 'docs'], false, 'English', 4],
  );
  assert.equal(conv.examples[0], 'feat(api): add retry to uploads');
  assert.match(styleRules(conv), /type\(scope\): description.*types used here: feat, fix, docs.*lower case/);
  const plain = detectStyle(['Add the walkthrough', 'Fix a crash on empty lists.', 'Update the docs.']);
  assert.deepEqual([plain.conventional, plain.capitalized, plain.trailingPeriod], [false, true, true]);
  const zh = detectStyle(['修复空列表时的崩溃', '新增导出功能', 'fix typo']);
  assert.equal(zh.language, 'Chinese');
  assert.match(styleRules(zh), /write in Chinese/);
  assert.equal(detectStyle(['✨ add search', '🐛 fix paging', ':memo: docs']).gitmoji, true);
  const body = detectStyle(['Add x\n\nBecause y.', 'Fix z\n\nIt broke when w.', 'Tidy']);
  assert.match(styleRules(body), /blank line and a short body/);
  const none = detectStyle([]);
  assert.deepEqual([none.basis, none.capitalized, none.maxLength, none.examples], [0, true, 50, []]);
  assert.match(styleRules(none), /one line only/);
});

test('clean: fences, quotes, labels and reasoning go; a streaming prefix shows nothing it would take back', () => {
  const table: Array<[string, boolean, string]> = [
    ['feat: add x', true, 'feat: add x'],
    ['  "feat: add x"  ', true, 'feat: add x'],
    ['“Add the parser”', true, 'Add the parser'],
    ['`fix: y`', true, 'fix: y'],
    ['```\nfeat: add x\n```', true, 'feat: add x'],
    ['```text\nfeat: add x\n\nBody line.\n```\nHope this helps!', true, 'feat: add x\n\nBody line.'],
    ['Commit message: fix: y', true, 'fix: y'],
    ['**Commit message:** fix: y', true, 'fix: y'],
    ['提交信息：修复崩溃', true, '修复崩溃'],
    ['<think>the diff adds x</think>\nfeat: add x', true, 'feat: add x'],
    ['subject   \n\n\n\nbody', true, 'subject\n\nbody'],
    ['```', false, ''],
    ['```te', false, ''],
    ['```text\nfeat: ad', false, 'feat: ad'],
    ['```text\nfeat: add x\n`', false, 'feat: add x'],
    ['<think>still thinking', false, ''],
    ['"feat: add', false, 'feat: add'],
  ];
  for (const [raw, done, want] of table) assert.equal(cleanMessage(raw, done), want, JSON.stringify(raw));
});

test('model: the commit-message setting, else the completion model, else the chat model of the default surface', () => {
  const base = {
    commitMessage: '',
    completions: '',
    chat: 'gpt-4o-mini',
    native: 'claude-haiku',
    defaultSurface: 'compatible' as const,
  };
  assert.deepEqual(commitModel({ ...base, commitMessage: ' cheap ' }), { model: 'cheap', from: 'commitMessage' });
  assert.deepEqual(commitModel({ ...base, completions: 'coder' }), { model: 'coder', from: 'completions' });
  assert.deepEqual(commitModel(base), { model: 'gpt-4o-mini', from: 'chat' });
  assert.deepEqual(commitModel({ ...base, defaultSurface: 'native' }), { model: 'claude-haiku', from: 'chat' });
  assert.equal(commitModel({ ...base, chat: '' }), undefined);
  const s = { defaultSurface: 'compatible' as const, nativeModel: 'claude-haiku', overrides: {} };
  assert.equal(commitSurface('claude-haiku', s, undefined, undefined), 'native');
  assert.equal(commitSurface('gpt-4o-mini', s, ['responses'], undefined), 'responses');
  assert.equal(commitSurface('gpt-4o-mini', s, undefined, 'responses'), 'responses', 'what the gateway taught wins');
});

test("the simulator's reply to a commit prompt is one subject line in the prompt's style", () => {
  const diff = budgetDiff(fileDiff('src/greeting.ts', 3, { mode: 'new' }), new PathExclusions([]));
  const style = detectStyle(['feat(api): add retry', 'fix(ui): keep caret']);
  assert.equal(commitMessageReply(commitPrompt({ diff, scope: 'staged', style })), 'feat(src): add greeting.ts');
  const plain = detectStyle(['Add the walkthrough', 'Fix a crash']);
  const two = budgetDiff([fileDiff('a.md', 1), fileDiff('b.ts', 1)].join('\n'), new PathExclusions([]));
  assert.equal(
    commitMessageReply(commitPrompt({ diff: two, scope: 'all', style: plain })),
    'Update a.md and 1 more file',
  );
  assert.equal(commitMessageReply('What is a commit message?'), undefined);
});

let sim: Simulator;
before(async () => {
  sim = await startSimulator();
});
after(() => sim.close());

/** The input box: every value written is recorded; `draft` is what it held. */
function box(draft: string): MessageSink & { value: string; writes: string[] } {
  const b = {
    value: draft,
    writes: [] as string[],
    get: () => b.value,
    set: (v: string) => {
      b.value = v;
      b.writes.push(v);
    },
  };
  return b;
}

const STYLE = detectStyle(['feat(api): add retry to uploads', 'fix(ui): keep the caret']);
const request = (signal: AbortSignal) =>
  commitRequest(
    'gpt-4o-mini',
    'compatible',
    commitPrompt({
      diff: budgetDiff(fileDiff('src/greeting.ts', 3, { mode: 'new' }), new PathExclusions([])),
      scope: 'staged',
      style: STYLE,
      draft: 'greeting',
    }),
    signal,
  );

test('stream (real client, simulator): the message arrives in pieces and ends as the subject; the draft went to the model', async () => {
  sim.reset();
  sim.fault({ kind: 'slowChunks', ms: 20 });
  const { client } = makeClient(sim);
  const b = box('greeting');
  const out = await streamMessage(client, request(new AbortController().signal), b, new AbortController().signal);
  assert.equal(out.kind, 'done');
  assert.equal(b.value, 'feat(src): add greeting.ts');
  assert.ok(b.writes.length >= 3, `streamed in pieces: ${JSON.stringify(b.writes)}`);
  assert.ok(
    b.writes.every((w) => 'feat(src): add greeting.ts'.startsWith(w)),
    'each write a prefix of the message',
  );
  assert.equal(sim.log.filter((r) => r.path === '/v1/chat/completions').length, 1, 'one request');
});

test('stream: Cancel closes the request at once and puts the draft back', async () => {
  sim.reset();
  sim.fault({ kind: 'slowChunks', ms: 300 });
  const { client } = makeClient(sim);
  const b = box('my draft');
  const cancel = new AbortController();
  const started = Date.now();
  const run = streamMessage(client, request(cancel.signal), b, cancel.signal);
  while (b.writes.length === 0 && Date.now() - started < 5_000) await new Promise((r) => setTimeout(r, 10));
  assert.ok(b.writes.length > 0, 'a first piece arrived');
  cancel.abort();
  assert.deepEqual(await run, { kind: 'cancelled' });
  assert.equal(b.value, 'my draft', 'the box holds the draft again');
  assert.ok(Date.now() - started < 2_000, 'not waited out');
  await new Promise((r) => setTimeout(r, 700)); // the simulator notices the close after its current pause
  const rec = sim.log.find((r) => r.path === '/v1/chat/completions');
  assert.equal(rec?.closedEarly, true, 'the simulator saw the request closed before its end');
});

test('stream: typing into the box while it streams stops the request and keeps what was typed', async () => {
  sim.reset();
  sim.fault({ kind: 'slowChunks', ms: 100 });
  const { client } = makeClient(sim);
  const b = box('');
  const run = streamMessage(client, request(new AbortController().signal), b, new AbortController().signal);
  while (b.writes.length === 0) await new Promise((r) => setTimeout(r, 10));
  b.value = 'fix: my own words';
  assert.deepEqual(await run, { kind: 'user-edited' });
  assert.equal(b.value, 'fix: my own words');
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(sim.log.find((r) => r.path === '/v1/chat/completions')?.closedEarly, true);
});

test('stream: a gateway error puts the draft back and is thrown as the classified error', async () => {
  sim.reset();
  sim.fault({ kind: 'midStreamError', afterEvents: 2 });
  const { client } = makeClient(sim);
  const b = box('draft');
  await assert.rejects(
    streamMessage(client, request(new AbortController().signal), b, new AbortController().signal),
    (e) => e instanceof GatewayError,
  );
  assert.equal(b.value, 'draft');
});

test('one button: the Source Control title (stable) for Git repositories; no proposed scm/inputBox entry', () => {
  const pkg = JSON.parse(readFileSync(join(__dirname, '../../../package.json'), 'utf8')) as {
    enabledApiProposals?: string[];
    contributes: { menus: Record<string, Array<{ command: string; when?: string; group?: string }>> };
  };
  const places = Object.entries(pkg.contributes.menus).flatMap(([menu, items]) =>
    items.filter((i) => i.command === 'modelRelay.generateCommitMessage').map((i) => ({ menu, ...i })),
  );
  // VS Code drops a proposed menu's entries, with an error in the extension's status, unless the
  // extension is allowed the proposal (`enabledApiProposals`, never on the Marketplace).
  assert.deepEqual(places, [
    { menu: 'scm/title', command: 'modelRelay.generateCommitMessage', when: 'scmProvider == git', group: 'navigation' },
  ]);
  assert.equal(pkg.enabledApiProposals, undefined);
});
