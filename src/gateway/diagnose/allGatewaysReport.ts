/**
 * Renderings of Diagnose All Gateways: a compact terminal table (one row per gateway, the causes
 * and fixes of what warned or failed under it, the fallback findings after it), and the JSON object
 * `relay-doctor diagnose --all --json` prints. Both hold only masked tokens: every text passes
 * through the secret redaction, with every gateway's token among the secrets.
 */
import { t } from '../l10n';
import { redactSecrets } from '../mask';
import {
  SUMMARY_ASPECTS,
  type FallbackFinding,
  type GatewaysDiagnosis,
  type SummaryAspect,
  type SummaryCell,
  type SummaryStatus,
} from './allGateways';
import { reportToJson, type RenderOptions, type TableOptions } from './report';
import { cells, padCells, wrap } from './textWidth';

function label(s: SummaryStatus): string {
  switch (s) {
    case 'ok':
      return t('PASS');
    case 'warn':
      return t('WARN');
    case 'fail':
      return t('FAIL');
    case 'skipped':
      return t('SKIP');
  }
}

function aspectTitle(a: SummaryAspect): string {
  switch (a) {
    case 'reachability':
      return t('Reachability');
    case 'token':
      return t('Token');
    case 'balance':
      return t('Balance');
    case 'models':
      return t('Models');
    case 'generation':
      return t('Generation');
  }
}

/** `s` cut to `width` cells, with an ellipsis when cut. */
function fit(s: string, width: number): string {
  if (cells(s) <= width) return s;
  let out = '';
  for (const ch of s) {
    if (cells(out + ch) > width - 1) break;
    out += ch;
  }
  return `${out}…`;
}

const cellText = (c: SummaryCell) => (c.text ? `${label(c.status)} ${c.text}` : label(c.status));

/** Column widths that fit `width`: the widest columns give way first (the masked token last), none below 8 cells. */
function columnWidths(natural: number[], width: number, keep: number): number[] {
  const w = [...natural];
  const gaps = 2 * (w.length - 1);
  while (w.reduce((a, b) => a + b, 0) + gaps > width) {
    const widest = (only: (i: number) => boolean) =>
      w.reduce((best, x, i) => (only(i) && x > 8 && (best < 0 || x > w[best]) ? i : best), -1);
    const i = widest((j) => j !== keep) >= 0 ? widest((j) => j !== keep) : widest(() => true);
    if (i < 0) break;
    w[i]--;
  }
  return w;
}

function findingLines(f: FallbackFinding, indent: string, textW: number): string[] {
  const lines = wrap(`${label(f.status)} ${f.cause}`, textW).map((l) => indent + l);
  for (const l of wrap(t('Fix: {0}', f.fix), textW - 2)) lines.push(`${indent}  ${l}`);
  return lines;
}

/** The plain-text table for a terminal: one row per gateway; causes and fixes of warnings and failures under it. */
export function renderGatewaysTable(d: GatewaysDiagnosis, o: TableOptions = {}): string {
  const width = Math.max(60, Math.min(o.width ?? 100, 200));
  const head = [t('GATEWAY'), ...SUMMARY_ASPECTS.map((a) => aspectTitle(a).toUpperCase())];
  const body = d.rows.map((r) => [r.gateway.name, ...SUMMARY_ASPECTS.map((a) => cellText(r[a]))]);
  const natural = head.map((h, i) => Math.max(cells(h), ...body.map((row) => cells(row[i]))));
  const w = columnWidths(natural, width, 1 + SUMMARY_ASPECTS.indexOf('token'));
  const line = (row: string[]) =>
    row
      .map((c, i) => padCells(fit(c, w[i]), w[i]))
      .join('  ')
      .trimEnd();
  const indent = '    ';
  const textW = width - indent.length;
  const lines = [
    d.rows.length === 1
      ? t('Model Relay diagnosis of 1 gateway')
      : t('Model Relay diagnosis of {0} gateways', d.rows.length),
    '',
    line(head),
  ];
  d.rows.forEach((r, i) => {
    lines.push(line(body[i]));
    for (const a of SUMMARY_ASPECTS) {
      const c = r[a];
      if ((c.status !== 'warn' && c.status !== 'fail') || !c.cause) continue;
      for (const l of wrap(t('{0}: {1}', aspectTitle(a), c.cause), textW)) lines.push(indent + l);
      if (c.fix) for (const l of wrap(t('Fix: {0}', c.fix), textW - 2)) lines.push(`${indent}  ${l}`);
    }
  });
  if (d.fallbacks.length) {
    lines.push('', t('Fallbacks:'));
    for (const f of d.fallbacks) lines.push(...findingLines(f, '  ', width - 2));
  }
  const passed = d.rows.filter((r) => r.ok).length;
  lines.push(
    '',
    d.ok
      ? t('Summary: no check failed on {0} of {1} gateways.', passed, d.rows.length)
      : t('Summary: {0} of {1} gateways without a failed check; see the failures above.', passed, d.rows.length),
  );
  return redactSecrets(lines.join('\n') + '\n', o.secrets ?? []);
}

/** The object `relay-doctor diagnose --all --json` prints: one entry per gateway (its full report inside) and the fallback findings. */
export function gatewaysToJson(d: GatewaysDiagnosis, o: RenderOptions = {}) {
  const cell = (c: SummaryCell) => ({ status: c.status, text: c.text, cause: c.cause ?? null, fix: c.fix ?? null });
  const obj = {
    ok: d.ok,
    startedAt: d.startedAt,
    durationMs: d.durationMs,
    gateways: d.rows.map((r) => ({
      id: r.gateway.id,
      name: r.gateway.name,
      ok: r.ok,
      reachability: cell(r.reachability),
      token: cell(r.token),
      balance: cell(r.balance),
      models: cell(r.models),
      generation: cell(r.generation),
      report: reportToJson(r.report, o),
    })),
    fallbacks: d.fallbacks.map((f) => ({
      status: f.status,
      model: f.model,
      target: f.target,
      gateway: f.gateway ?? null,
      cause: f.cause,
      fix: f.fix,
    })),
  };
  return JSON.parse(redactSecrets(JSON.stringify(obj), o.secrets ?? [])) as typeof obj;
}
