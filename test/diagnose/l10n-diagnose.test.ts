/**
 * The diagnosis in Chinese, in-process: runDiagnosis against the simulator with the Chinese bundle
 * loaded (useTranslations, as the extension and relay-doctor do), then English again once the bundle
 * is dropped. Ids, results and fix actions stay machine codes in both languages; the table stays
 * aligned with double-width characters.
 */
import { test, before, after, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  renderMarkdown,
  renderTable,
  reportToJson,
  runDiagnosis,
  type CheckId,
  type DiagnosisInput,
  type DiagnosisReport,
} from '../../src/gateway';
import { oneGateway } from '../fakes/diagnosis';
import { useTranslations, type Translations } from '../../src/gateway/l10n';
import { checkTitle, checkTitles } from '../../src/gateway/diagnose/titles';
import { cells, padCells, wrap } from '../../src/gateway/diagnose/textWidth';
import { startSimulator, type Simulator } from '../sim/server';

const ROOT = resolve(__dirname, '../../..');
let strict: Simulator;
let real: Simulator;

/** The Chinese fragments merged as the build merges them (no build needed). */
function chinese(): Translations {
  const dir = join(ROOT, 'l10n', 'zh-cn');
  const out: Record<string, string> = {};
  for (const f of readdirSync(dir)
    .filter((n) => n.endsWith('.json'))
    .sort())
    Object.assign(out, JSON.parse(readFileSync(join(dir, f), 'utf8')) as Record<string, string>);
  return out;
}

before(async () => {
  strict = await startSimulator({ profile: 'strict' });
  real = await startSimulator({ profile: 'real' });
});
after(async () => {
  useTranslations(undefined);
  await strict.close();
  await real.close();
});
afterEach(() => {
  useTranslations(undefined);
  strict.reset();
  real.reset();
});

const T = { timeout: 20_000 };
const HAN = /[\u4e00-\u9fff]/;

function diagnose(sim: Simulator, over: Partial<DiagnosisInput> = {}): Promise<DiagnosisReport> {
  return runDiagnosis({
    baseUrl: sim.url,
    token: sim.tokens.production,
    tokenName: 'production',
    models: { chat: 'gpt-4o-mini', native: 'claude-sonnet-4-5' },
    timeouts: { requestMs: 3_000, totalMs: 12_000 },
    // the terminal tools' rows (their titles are Chinese too): none installed
    tools: {
      env: {},
      statuses: () => Promise.resolve([{ tool: 'claude-code', label: 'Claude Code', state: 'not-installed' }]),
    },
    ...over,
  });
}

function check(r: DiagnosisReport, id: CheckId) {
  const c = r.checks.find((x) => x.id === id);
  assert.ok(c, `check ${id} is in the report`);
  return c;
}

test(
  'a wrong token in Chinese: titles, cause and fix are Chinese; ids, results and actions unchanged; English again after',
  T,
  async () => {
    const bad = `sk-${'q'.repeat(48)}`;
    useTranslations(chinese());
    const r = await diagnose(strict, { token: bad });
    for (const c of r.checks) assert.ok(HAN.test(c.title), `${c.id}: "${c.title}" is Chinese`);
    assert.equal(check(r, 'base-url').title, '基础 URL 格式');
    assert.equal(check(r, 'tool-codex').title, 'Codex CLI 设置');
    assert.ok(HAN.test(check(r, 'tool-claude-code').cause), check(r, 'tool-claude-code').cause);
    const tok = check(r, 'token');
    assert.equal(tok.title, '令牌');
    assert.equal(tok.result, 'fail');
    assert.equal(tok.httpStatus, 401);
    assert.match(
      tok.cause,
      /^GET \/v1\/models 返回 401：令牌（sk-qqq\.\.\.qqqq）缺失、输错、已禁用，或请求头格式不对。/,
    );
    assert.ok(!/。 /.test(tok.cause), 'no space after a Chinese full stop');
    assert.deepEqual(tok.fixAction, { kind: 'switch-token' });
    const vis = check(r, 'visibility');
    assert.equal(vis.result, 'skipped');
    assert.equal(vis.cause, '令牌被拒绝（401），因此未测试此项。');
    assert.equal(vis.fix, '请先解决令牌问题。');

    const md = renderMarkdown(oneGateway(r), { secrets: [bad] });
    assert.match(md, /^## Model Relay 诊断$/m);
    assert.match(md, /^\| \| 检查 \| HTTP \| 用时 \| 原因 \| 解决办法 \|$/m);
    assert.match(md, /^- 结果：\*\*有检查失败\*\* — 1 项失败，/m);
    const table = renderTable(oneGateway(r), { secrets: [bad], width: 100 });
    assert.match(table, /^失败 {3}令牌 +401 /m);
    assert.match(table, /^ {7}原因：GET \/v1\/models 返回 401/m);
    // Double-width titles: the HTTP column starts in the same terminal cell on every row.
    const rows = table.split('\n').filter((l) => /^(通过|警告|失败|跳过) /.test(l));
    assert.equal(rows.length, r.checks.length);
    const httpCell = (l: string) => cells(l.slice(0, l.search(/ (\d{3}|-) +\d/) + 1));
    assert.equal(new Set(rows.map(httpCell)).size, 1, rows.join('\n'));
    const json = reportToJson(r, { secrets: [bad] });
    assert.deepEqual(
      json.checks.map((c) => c.id),
      r.checks.map((c) => c.id),
    );
    assert.ok(json.checks.every((c) => ['pass', 'warn', 'fail', 'skipped'].includes(c.result)));
    for (const text of [JSON.stringify(r), md, table]) assert.ok(!text.includes(bad), 'no full token');

    useTranslations(undefined);
    const en = await diagnose(strict, { token: bad });
    assert.equal(check(en, 'token').title, 'Token');
    assert.match(
      check(en, 'token').cause,
      /^GET \/v1\/models answered 401: the token \(sk-qqq\.\.\.qqqq\) is missing, mistyped, disabled, or sent in the wrong header format\./,
    );
    assert.equal(checkTitle('visibility'), 'Model visibility');
    assert.ok(
      !HAN.test(renderTable(oneGateway(en), { secrets: [bad] }) + renderMarkdown(oneGateway(en), { secrets: [bad] })),
      'English again, no Chinese left',
    );
  },
);

test(
  'Chinese group advice and generation causes (real: pricing names the groups); streaming and visibility too',
  T,
  async () => {
    useTranslations(chinese());
    const r = await diagnose(real, { models: { chat: 'gpt-4o', native: 'claude-sonnet-4-5' } });
    const g = check(r, 'generate-chat');
    assert.equal(g.result, 'fail');
    assert.equal(g.httpStatus, 503);
    assert.match(
      g.cause,
      /^GET \/v1\/models 列出了“gpt-4o”，但生成调用返回了 503 "model_not_found"（不是暂时故障）：gpt-4o 只对分组 vip, svip 开放；该令牌所在分组（default）无法使用它。/,
    );
    assert.match(g.fix, /^请向网关管理员申请一个 vip 或 svip 分组的令牌/);
    const gn = check(r, 'generate-native');
    assert.equal(gn.result, 'pass');
    assert.match(gn.cause, /返回 200 并带有回复：原生接口可以正常生成。$/);
    assert.match(check(r, 'stream-native').cause, /^原生接口上的一段简短流式回复/);
    assert.match(check(r, 'visibility').cause, /^所有已配置的模型都在该令牌的列表中（gpt-4o, claude-sonnet-4-5）。/);

    const notListed = await diagnose(strict, { token: strict.tokens.test, tokenName: 'test' });
    assert.match(check(notListed, 'visibility').cause, /^原生模型“claude-sonnet-4-5”不在该令牌的模型列表中/);
  },
);

test('every title has a translation, and padding and wrapping count a Chinese character as two cells', () => {
  useTranslations(chinese());
  const zh = checkTitles();
  useTranslations(undefined);
  const en = checkTitles();
  for (const id of Object.keys(en) as CheckId[]) assert.notEqual(zh[id], en[id], `${id} is translated`);
  assert.equal(cells('令牌 ab'), 7);
  assert.equal(padCells('令牌', 7), '令牌   ');
  assert.equal(padCells('Token', 7), 'Token'.padEnd(7));
  assert.deepEqual(wrap('one two three four', 9), ['one two', 'three', 'four']);
  assert.deepEqual(
    wrap('令牌被拒绝了。因此未测试', 8),
    ['令牌被拒', '绝了。因', '此未测试'],
    'a full stop stays with its character',
  );
  for (const l of wrap(
    '原因：GET /v1/models 返回 401：令牌（sk-qqq...qqqq）缺失、输错、已禁用，或请求头格式不对。',
    20,
  ))
    assert.ok(cells(l) <= 20 || !/\s/.test(l), l);
});
