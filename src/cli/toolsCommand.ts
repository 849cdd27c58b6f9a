/**
 * `relay-doctor tools [--json]` (issue 26 §3): each terminal tool's state as it resolves its own
 * files and the current environment (the tools module's statuses), and, for each set-up tool, its
 * own request sent once (the same rows as Diagnose: diagnose/toolCheck.ts). Exit 1 when a set-up
 * tool would fail. `--json` prints `{ tools: [{ tool, label, state, result, cause, fix, probe, … }] }`
 * with tokens masked.
 */
import type { Dispatcher } from 'undici';
import { redactSecrets } from '../gateway/mask';
import { t } from '../gateway/l10n';
import { probeTool, type ToolProbe } from '../gateway/tools/probes';
import { probeTargetOf } from '../gateway/tools/probeTarget';
import { toolLabel } from '../gateway/tools/probeWords';
import type { ToolGateway, ToolStatus } from '../gateway/tools/types';
import { TOOL_COMMANDS, probeLines, probeOutcome, resolvedLines } from '../gateway/diagnose/toolCheck';
import type { CheckResult } from '../gateway/diagnose/types';

/** One tool's row: its state, what it will use, and its probe's outcome. */
export interface ToolRow {
  tool: ToolStatus['tool'];
  label: string;
  state: ToolStatus['state'];
  result: CheckResult;
  cause: string;
  fix: string;
  details: string[];
  probe: ToolProbe | null;
}

export interface ToolsReport {
  tools: ToolRow[];
  /** false when a set-up tool's own request failed */
  ok: boolean;
}

export interface ToolsRun {
  statuses: ToolStatus[];
  env: Record<string, string | undefined>;
  dispatcher?: Dispatcher | undefined;
  models?: ToolGateway['models'] | undefined;
  timeoutMs?: number | undefined;
  signal?: AbortSignal | undefined;
}

function notProbedRow(s: ToolStatus): ToolRow {
  const label = toolLabel(s.tool);
  const base = {
    tool: s.tool,
    label,
    state: s.state,
    result: 'skipped' as const,
    details: resolvedLines(s),
    probe: null,
  };
  if (s.state === 'not-installed')
    return {
      ...base,
      cause: t('{0} is not installed: no {1} command was found on PATH.', label, TOOL_COMMANDS[s.tool]),
      fix: '',
    };
  if (s.state === 'unavailable')
    return { ...base, cause: s.why ?? t('{0} cannot be set up for this gateway.', label), fix: '' };
  return {
    ...base,
    cause: s.why ?? t('{0} is installed but not set up for this gateway.', label),
    fix: t('Run "Model Relay: Set Up Tools…" and pick {0}.', label),
  };
}

/** Every tool's row: set-up (and overridden) tools are probed, one request each, one after the other. */
export async function toolsReport(run: ToolsRun): Promise<ToolsReport> {
  const rows: ToolRow[] = [];
  for (const s of run.statuses) {
    if (s.state !== 'set-up' && s.state !== 'overridden') {
      rows.push(notProbedRow(s));
      continue;
    }
    const target = await probeTargetOf(s, run.env);
    const p = await probeTool(target, {
      dispatcher: run.dispatcher,
      models: run.models,
      timeoutMs: run.timeoutMs,
      signal: run.signal,
    });
    const o = probeOutcome(s, p, resolvedLines(s), undefined);
    rows.push({
      tool: s.tool,
      label: toolLabel(s.tool),
      state: s.state,
      result: o.result,
      cause: o.cause,
      fix: o.fix,
      details: o.details ?? [],
      probe: p,
    });
  }
  return { tools: rows, ok: rows.every((r) => r.result !== 'fail') };
}

const WORD: Record<CheckResult, string> = { pass: 'PASS', warn: 'WARN', fail: 'FAIL', skipped: 'SKIP' };

/** The terminal rendering: one block per tool. `secrets` are masked wherever they appear. */
export function renderTools(r: ToolsReport, secrets: ReadonlyArray<string | undefined> = []): string {
  const lines: string[] = [t('Terminal tools'), ''];
  for (const row of r.tools) {
    lines.push(`${WORD[row.result]}  ${row.label} (${row.state})`);
    lines.push(`      ${row.cause}`);
    if (row.fix) lines.push(`      ${t('Fix: {0}', row.fix)}`);
    for (const d of row.details) lines.push(`      · ${d}`);
    if (row.probe && !row.details.some((d) => probeLines(row.probe!).includes(d)))
      for (const d of probeLines(row.probe)) lines.push(`      · ${d}`);
    lines.push('');
  }
  lines.push(r.ok ? t('Every set-up tool answered.') : t('A set-up tool would fail: see above.'));
  return `${redactSecrets(lines.join('\n'), secrets)}\n`;
}

/** `--json`: the rows with tokens masked (the probe's credential never was in them). */
export function toolsJson(r: ToolsReport, secrets: ReadonlyArray<string | undefined> = []): string {
  return `${redactSecrets(JSON.stringify(r, null, 2), secrets)}\n`;
}

/** Exit code: 1 when a set-up tool would fail, else 0. */
export const toolsExitCode = (r: ToolsReport): number => (r.ok ? 0 : 1);
