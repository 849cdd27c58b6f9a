/**
 * The inline-completion engine's parts, each as a table: the debounce drawn from typing speed, the
 * context rules (mid-word, blank, comment-only), the exclusion globs, the token-budget windows, the
 * bounded cache and the hour window.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CompletionCache, cacheKey, CACHE_ENTRIES } from '../../src/host/completions/cache';
import { contextWindows } from '../../src/host/completions/context';
import { HourWindow, BUCKET_MS } from '../../src/host/completions/hourWindow';
import { contextSkip } from '../../src/host/completions/skipRules';
import { PathExclusions } from '../../src/host/pathExclusions';
import { DEBOUNCE, TypingPace } from '../../src/host/completions/typingPace';
import { estimateTokens } from '../../src/gateway/tokenEstimate';

/** keystroke gaps (ms) typed before asking → the wait */
const debounceTable: Array<[string, number[], number]> = [
  ['no history: the default', [], DEBOUNCE.defaultMs],
  ['three gaps: still the default', [100, 100, 100], DEBOUNCE.defaultMs],
  ['steady 100 ms: a little more than the gap', [100, 100, 100, 100, 100, 100], 120],
  ['fast 40 ms: the floor', Array(10).fill(40), DEBOUNCE.minMs],
  ['slow 500 ms: the ceiling', Array(10).fill(500), DEBOUNCE.maxMs],
  ['uneven: the 75th percentile, not the mean', [80, 90, 100, 110, 120, 130, 140, 300], 168],
  ['pauses are not the pace', [2000, 100, 5000, 100, 100, 3000], DEBOUNCE.defaultMs],
  ['pauses left out, the rest counts', [2000, 100, 5000, 100, 100, 100, 100, 3000], 120],
  ['only the last 16 gaps', [...Array(20).fill(300), ...Array(16).fill(100)], 120],
];

test('the debounce follows the typing speed (75th percentile of recent gaps × 1.2, within 75–400 ms)', () => {
  for (const [name, gaps, wait] of debounceTable) {
    const pace = new TypingPace();
    let now = 0;
    let version = 1;
    pace.keystroke('d', version, now);
    for (const g of gaps) pace.keystroke('d', ++version, (now += g));
    assert.equal(pace.debounceMs('d'), wait, name);
    // a provide without an edit (same version) is not a keystroke
    pace.keystroke('d', version, now + 10);
    assert.equal(pace.debounceMs('d'), wait, `${name} (same version again)`);
  }
});

test('the pace is per document', () => {
  const pace = new TypingPace();
  for (let i = 0; i < 10; i++) pace.keystroke('fast', i, i * 40);
  for (let i = 0; i < 10; i++) pace.keystroke('slow', i, i * 300);
  assert.equal(pace.debounceMs('fast'), DEBOUNCE.minMs);
  assert.equal(pace.debounceMs('slow'), 360);
});

/** text with `|` at the cursor, language → the rule that holds */
const skipTable: Array<[string, string, ReturnType<typeof contextSkip>]> = [
  ['const x = fo|o;', 'typescript', 'mid-word'],
  ['const x = |foo;', 'typescript', 'mid-word'],
  ['const x = foo|_bar;', 'typescript', 'mid-word'],
  ['let 名|字 = 1', 'typescript', 'mid-word'],
  ['const x = foo|;', 'typescript', undefined],
  ['const x = foo|', 'typescript', undefined],
  ['const x = foo(|)', 'typescript', undefined],
  ['if (a) {\n  |\n}', 'typescript', undefined],
  ['|', 'typescript', 'blank'],
  ['\n\n   |\n\t\n', 'python', 'blank'],
  ['// Copyright 2026 Example\n// Licensed under MIT|', 'typescript', 'comment-only'],
  ['/**\n * A header\n * more |\n */', 'typescript', 'comment-only'],
  ['# notes\n\n# more notes |', 'python', 'comment-only'],
  ['// parse a date|\nfunction parse() {}', 'typescript', undefined],
  ['function f() {}\n// then |', 'typescript', undefined],
  ['// only comments\n|', 'typescript', undefined],
  ['-- a query |', 'sql', 'comment-only'],
  ['*ptr = 1;\n// set |', 'c', undefined],
  ['// a note |', 'markdown', undefined],
  ['<!-- a note |', 'html', undefined],
];

test('the context rules: mid-word, blank and comment-only', () => {
  for (const [marked, lang, want] of skipTable) {
    const offset = marked.indexOf('|');
    const text = marked.slice(0, offset) + marked.slice(offset + 1);
    assert.equal(contextSkip(text, offset, lang), want, `${JSON.stringify(marked)} (${lang})`);
  }
});

test('comment-only looks 50 lines up and 20 down, no further', () => {
  const comments = '// c\n'.repeat(60);
  assert.equal(contextSkip(`x = 1;\n${comments}// |`, 7 + comments.length + 3, 'typescript'), 'comment-only');
  const near = '// c\n'.repeat(10);
  const text = `x = 1;\n${near}// here`;
  assert.equal(contextSkip(text, text.length, 'typescript'), undefined);
  const below = `// here\n${'// c\n'.repeat(25)}code();`;
  assert.equal(contextSkip(below, 7, 'typescript'), 'comment-only');
  const close = `// here\n${'// c\n'.repeat(5)}code();`;
  assert.equal(contextSkip(close, 7, 'typescript'), undefined);
});

const defaults = ['.env*', '*.pem', '*.key', 'id_rsa*', '**/.git/**'];
const excludeTable: Array<[string, readonly string[], boolean]> = [
  ['.env', defaults, true],
  ['.env.local', defaults, true],
  ['config/.env.production', defaults, true],
  ['certs/server.pem', defaults, true],
  ['a/b/c/private.key', defaults, true],
  ['home/.ssh/id_rsa.pub', defaults, true],
  ['.git/config', defaults, true],
  ['vendor/lib/.git/HEAD', defaults, true],
  ['src/environment.ts', defaults, false],
  ['src/keys.ts', defaults, false],
  ['docs/pem.md', defaults, false],
  ['src\\secrets\\token.key', defaults, true],
  ['src/generated/api.ts', ['src/generated/**'], true],
  ['lib/src/generated/api.ts', ['src/generated/**'], false],
  ['src/a.ts', [], false],
  ['src/a.ts', ['  ', ''], false],
];

test('exclusions (the shared matcher the engine uses): names match at any depth, paths from the root', () => {
  for (const [path, patterns, want] of excludeTable)
    assert.equal(new PathExclusions(patterns).excludes(path), want, `${path} ${patterns}`);
});

test('context windows: prefix and suffix cut by the token budget (70 % / 30 %), at whole lines', () => {
  const lines = Array.from({ length: 400 }, (_, i) => `const value${i} = compute(${i}, "item");\n`);
  const text = lines.join('');
  const offset = lines.slice(0, 200).join('').length + 6; // inside line 200
  for (const budget of [50, 200, 1000]) {
    const w = contextWindows(text, offset, budget);
    assert.ok(text.slice(0, offset).endsWith(w.prefix) && text.slice(offset).startsWith(w.suffix));
    const pt = estimateTokens(w.prefix);
    const st = estimateTokens(w.suffix);
    assert.ok(pt <= budget * 0.7 + 1, `prefix ${pt} tokens within ${budget * 0.7}`);
    assert.ok(pt >= budget * 0.7 - 15, `prefix ${pt} uses its share of ${budget}`);
    assert.ok(pt + st <= budget + 2, `both ${pt + st} within ${budget}`);
    assert.ok(st >= budget * 0.3 - 15, `suffix ${st} uses its share of ${budget}`);
    // whole lines: the prefix starts at a line start, the suffix ends at a line end
    assert.ok(offset - w.prefix.length === 0 || text[offset - w.prefix.length - 1] === '\n');
    assert.ok(w.suffix.endsWith('\n'));
    assert.ok(Math.abs(w.tokens - (pt + st)) <= 2 + (pt + st) * 0.02, `reported ${w.tokens} ≈ ${pt + st}`);
  }
  // near the top, the suffix gets what the prefix left
  const top = contextWindows(text, 10, 200);
  assert.equal(top.prefix, text.slice(0, 10));
  assert.ok(estimateTokens(top.suffix) > 200 * 0.5);
  // the whole small file fits
  assert.deepEqual(contextWindows('ab\ncd', 3, 1000), { prefix: 'ab\n', suffix: 'cd', tokens: 2 });
  assert.deepEqual(contextWindows('\nx', 1, 100).prefix, '\n');
});

test('context windows: one line longer than the budget is cut, not dropped', () => {
  const long = 'x + '.repeat(5000);
  const w = contextWindows(long + long, long.length, 100);
  assert.ok(w.prefix.length > 0 && w.suffix.length > 0);
  assert.ok(estimateTokens(w.prefix) <= 75, `${estimateTokens(w.prefix)}`);
  assert.ok(estimateTokens(w.prefix) >= 60, `${estimateTokens(w.prefix)}`);
  assert.ok(estimateTokens(w.suffix) <= 35, `${estimateTokens(w.suffix)}`);
  // whitespace costs no tokens, yet the scan is bounded
  const spaces = ' '.repeat(1_000_000);
  assert.ok(contextWindows(spaces + spaces, spaces.length, 100).prefix.length <= 100 * 16);
});

test('the cache: keyed by document, prefix tail and suffix head; least recently used goes first', () => {
  const c = new CompletionCache();
  const tail = 'z'.repeat(300) + 'foo.';
  c.set(cacheKey('a', 'x'.repeat(1000) + tail, ')'), 'bar');
  assert.equal(c.get(cacheKey('a', 'y'.repeat(1000) + tail, ')')), 'bar', 'only the tail counts');
  c.set(cacheKey('a', tail, ')'), 'bar');
  assert.equal(c.get(cacheKey('b', tail, ')')), undefined, 'another document');
  assert.equal(c.get(cacheKey('a', tail, ');')), undefined, 'another suffix');
  assert.equal(c.get(cacheKey('a', `${tail}x`, ')')), undefined, 'another prefix');
  c.set(cacheKey('a', 'empty', ''), '');
  assert.equal(c.get(cacheKey('a', 'empty', '')), '', 'an empty answer is kept');
  for (let i = 0; i <= CACHE_ENTRIES; i++) {
    c.set(cacheKey('a', `p${i}`, ''), `s${i}`);
    if (i === 10) c.get(cacheKey('a', 'p0', ''));
  }
  assert.equal(c.size, CACHE_ENTRIES);
  assert.equal(c.get(cacheKey('a', 'p0', '')), 's0', 'used recently: kept');
  assert.equal(c.get(cacheKey('a', 'p1', '')), undefined, 'least recently used: gone');
});

test('the hour window: sliding by the minute, bounded, cost only when priced', () => {
  const h = new HourWindow();
  const t0 = 10 * BUCKET_MS;
  h.add(t0, { requests: 1, tokens: 100 });
  h.add(t0 + 30 * BUCKET_MS, { requests: 2, tokens: 50, cost: 0.5, priced: 2 });
  assert.deepEqual(h.totals(t0 + 30 * BUCKET_MS), {
    requests: 3,
    aborted: 0,
    cacheHits: 0,
    shown: 0,
    accepted: 0,
    tokens: 150,
    cost: 0.5,
  });
  assert.equal(h.totals(t0 + 60 * BUCKET_MS).requests, 3, 'the first minute is still within the hour');
  assert.equal(h.totals(t0 + 61 * BUCKET_MS).requests, 2, 'an hour and a minute later it is gone');
  assert.equal(h.totals(t0 + 100 * BUCKET_MS).requests, 0);
  assert.equal(h.totals(t0 + 100 * BUCKET_MS).cost, undefined);
  for (let m = 0; m < 500; m++) h.add(t0 + m * BUCKET_MS, { requests: 1 });
  assert.ok((h as unknown as { buckets: unknown[] }).buckets.length <= 61);
});
