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
  SUMMARY_RESULT,
  type FallbackFinding,
  type GatewaySummaryRow,
  type GatewaysDiagnosis,
  type SummaryAspect,
  type SummaryCell,
  type SummaryStatus,
} from './allGateways';
import { reportToJson, resultLabel, type RenderOptions, type TableOptions } from './report';
import { cells, padCells, wrap } from './textWidth';

const label = (s: SummaryStatus) => resultLabel(SUMMARY_RESULT[s]);

/** A summary column's title (the terminal table and the diagnose panel). */
export function aspectTitle(a: SummaryAspect): string {
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

const cellText = (c: SummaryCell) => (c.text ? `${label(c.status)} ${c.text}` : label(c.status));

function findingLines(f: FallbackFinding, indent: string, textW: number): string[] {
  const lines = wrap(`${label(f.status)} ${f.cause}`, textW).map((l) => indent + l);
  for (const l of wrap(t('Fix: {0}', f.fix), textW - 2)) lines.push(`${indent}  ${l}`);
  return lines;
}

/** The cause and fix of each cell that warned or failed, indented. */
function causeLines(r: GatewaySummaryRow, indent: string, textW: number): string[] {
  const lines: string[] = [];
  for (const a of SUMMARY_ASPECTS) {
    const c = r[a];
    if ((c.status !== 'warn' && c.status !== 'fail') || !c.cause) continue;
    for (const l of wrap(t('{0}: {1}', aspectTitle(a), c.cause), textW)) lines.push(indent + l);
    if (c.fix) for (const l of wrap(t('Fix: {0}', c.fix), textW - 2)) lines.push(`${indent}  ${l}`);
  }
  return lines;
}

/** One row per gateway, when the table fits the width. */
function tableLines(d: GatewaysDiagnosis, width: number): string[] | undefined {
  const head = [t('GATEWAY'), ...SUMMARY_ASPECTS.map((a) => aspectTitle(a).toUpperCase())];
  const body = d.rows.map((r) => [r.gateway.name, ...SUMMARY_ASPECTS.map((a) => cellText(r[a]))]);
  const w = head.map((h, i) => Math.max(cells(h), ...body.map((row) => cells(row[i]))));
  if (w.reduce((x, y) => x + y, 0) + 2 * (w.length - 1) > width) return undefined;
  const line = (row: string[]) =>
    row
      .map((c, i) => padCells(c, w[i]))
      .join('  ')
      .trimEnd();
  const lines = [line(head)];
  d.rows.forEach((r, i) => lines.push(line(body[i]), ...causeLines(r, '    ', width - 4)));
  return lines;
}

/** A block per gateway (its name, then one line per aspect), for a terminal too narrow for the table. */
function stackedLines(d: GatewaysDiagnosis, width: number): string[] {
  const titleW = Math.max(...SUMMARY_ASPECTS.map((a) => cells(aspectTitle(a))));
  const lines: string[] = [];
  for (const r of d.rows) {
    lines.push(r.gateway.name);
    for (const a of SUMMARY_ASPECTS)
      wrap(cellText(r[a]), width - titleW - 4).forEach((l, i) =>
        lines.push(`  ${padCells(i ? '' : aspectTitle(a), titleW)}  ${l}`),
      );
    lines.push(...causeLines(r, '    ', width - 4), '');
  }
  return lines.slice(0, -1);
}

/** The plain-text report for a terminal: one row per gateway (a block each when narrow); causes and fixes of warnings and failures under it. */
export function renderGatewaysTable(d: GatewaysDiagnosis, o: TableOptions = {}): string {
  const width = Math.max(40, Math.min(o.width ?? 100, 240));
  const lines = [
    d.rows.length === 1
      ? t('Model Relay diagnosis of 1 gateway')
      : t('Model Relay diagnosis of {0} gateways', d.rows.length),
    '',
    ...(tableLines(d, width) ?? stackedLines(d, width)),
  ];
  if (d.fallbacks.length) {
    lines.push('', t('Fallbacks:'));
    for (const f of d.fallbacks) lines.push(...findingLines(f, '  ', width - 2));
  }
  const passed = d.rows.filter((r) => r.ok).length;
  const summary = d.ok
    ? t('Summary: no check failed on {0} of {1} gateways.', passed, d.rows.length)
    : t('Summary: {0} of {1} gateways without a failed check; see the failures above.', passed, d.rows.length);
  lines.push('', ...wrap(summary, width));
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
