/**
 * `relay-doctor tools [--json] [--trust-project]` (issue 26 §3): each terminal tool's state as it
 * resolves its own files and the current environment (the tools module's statuses; the current
 * folder's project files only with --trust-project), and, for each set-up tool, its own request sent
 * once — only to the gateway's own origins (the same rows as Diagnose: diagnose/toolCheck.ts). Exit 1
 * when a set-up tool would fail. `--json` prints
 * `{ tools: [{ tool, label, state, result, cause, fix, probe, … }] }` with tokens masked.
 */
import { CredentialScope } from '../gateway/http/egress';
import type { Dispatcher } from 'undici';
import type { GatewayClient } from '../gateway';
import { toolIdentity } from '../gateway/tools/common';
import { maskToken, redactSecrets } from '../gateway/mask';
import { t } from '../gateway/l10n';
import { probeTool, type ToolProbe } from '../gateway/tools/probes';
import type { ToolGateway, ToolStatus } from '../gateway/tools/types';
import { modelSurfaces, toolRow, type ToolRowOutcome } from '../gateway/diagnose/toolCheck';
import { nodeToolsEnvironment, toolLabel, toolStatuses } from '../gateway/tools';
import type { CliConfig } from './config';
import type { GatewaysFile } from './gatewaysFile';
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
  /** the gateway's origins: a tool aimed anywhere else is reported, and nothing is sent to it */
  scope: CredentialScope;
  env: Record<string, string | undefined>;
  dispatcher?: Dispatcher | undefined;
  models?: ToolGateway['models'] | undefined;
  timeoutMs?: number | undefined;
  signal?: AbortSignal | undefined;
}

/** A row as relay-doctor prints it: the tool's state and the row Diagnose shows for it (diagnose/toolCheck.ts). */
function rowOf(s: ToolStatus, { outcome: o, probe }: ToolRowOutcome): ToolRow {
  return {
    tool: s.tool,
    label: toolLabel(s.tool),
    state: s.state,
    result: o.result,
    cause: o.cause,
    fix: o.fix,
    details: o.details ?? [],
    probe: probe ?? null,
  };
}

/** Every tool's row: set-up (and overridden) tools are probed, one request each, one after the other. */
export async function toolsReport(run: ToolsRun): Promise<ToolsReport> {
  const rows: ToolRow[] = [];
  for (const s of run.statuses) {
    const row = await toolRow(s, {
      env: run.env,
      send: (target) =>
        probeTool(target, {
          scope: run.scope,
          dispatcher: run.dispatcher,
          models: run.models,
          timeoutMs: run.timeoutMs,
          signal: run.signal,
        }),
    });
    rows.push(rowOf(s, row));
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
    // the details end with the probe's lines (the request, its status and time)
    for (const d of row.details) lines.push(`      · ${d}`);
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

/**
 * The gateway the tools are compared with: relay-doctor's (its address, its token masked, the
 * variable Model Relay gives new terminals), with the token's models and their surfaces.
 */
export function toolGatewayOf(
  cfg: CliConfig,
  models: ToolGateway['models'],
  file?: GatewaysFile,
  env: Record<string, string | undefined> = {},
): ToolGateway {
  const id = cfg.profile?.id ?? 'default';
  // the file's other gateways: a tool aimed at one of them is named as set up for it
  const others = (file?.gateways ?? [])
    .filter((g) => g.id !== id)
    .map((g) => {
      const token = env[file!.tokenEnv.get(g.id) ?? '']?.trim();
      return {
        id: g.id,
        name: g.name,
        baseUrl: g.baseUrl,
        backupUrls: g.backupUrls ?? [],
        maskedTokens: token ? [maskToken(token)] : [],
      };
    });
  return {
    id,
    baseUrl: cfg.baseUrl,
    ...(cfg.profile?.backupUrls?.length ? { backupUrls: [...cfg.profile.backupUrls] } : {}),
    name: cfg.profile?.name ?? new URL(cfg.baseUrl).host,
    maskedToken: maskToken(cfg.token),
    ...toolIdentity(id),
    models,
    ...(others.length ? { others } : {}),
  };
}

export interface ToolsCommandIo {
  env: Record<string, string | undefined>;
  cwd: string;
  stdout: { write(s: string): unknown };
  stderr: { write(s: string): unknown };
}

/**
 * Runs `relay-doctor tools`: the tools' states against the gateway (its model list read once), each
 * set-up tool probed. `gateway` is undefined when none is configured (`why` says so on stderr): the
 * states are read all the same, and no tool is set up for a gateway, so nothing is sent.
 */
export async function toolsCommand(
  gateway: { cfg: CliConfig; client: GatewayClient; dispatcher: Dispatcher; file?: GatewaysFile } | { why: string },
  o: { json: boolean; trustProject: boolean },
  io: ToolsCommandIo,
): Promise<number> {
  // The current folder's project files (a cloned repository's) are read only with --trust-project.
  const environment = nodeToolsEnvironment({ env: io.env, workspaceDir: io.cwd, workspaceTrusted: o.trustProject });
  let tg: ToolGateway | undefined;
  if ('cfg' in gateway) {
    // a list that cannot be read is said as that failure (the tools are judged by their address all the same)
    let modelsError: string | undefined;
    const listed = await gateway.client.listModels().catch((e: unknown) => {
      modelsError = redactSecrets(e instanceof Error ? e.message : String(e), [gateway.cfg.token]);
      return [];
    });
    tg = {
      ...toolGatewayOf(gateway.cfg, modelSurfaces(listed), gateway.file, io.env),
      ...(modelsError ? { modelsError } : {}),
    };
  } else
    io.stderr.write(`relay-doctor: ${t('{0} The tools are read without a gateway: none is probed.', gateway.why)}\n`);
  const statuses = await toolStatuses(environment, tg);
  const report = await toolsReport({
    statuses,
    scope: 'cfg' in gateway ? gateway.client.credentialScope : new CredentialScope('', []),
    env: io.env,
    dispatcher: 'cfg' in gateway ? gateway.dispatcher : undefined,
    models: tg?.models,
  });
  // the gateway's token, and any credential the terminal holds (a tool's own variable)
  const secrets = [
    ...('cfg' in gateway ? [gateway.cfg.token] : []),
    ...Object.entries(io.env)
      .filter(([k, v]) => v && /KEY|TOKEN|SECRET/i.test(k))
      .map(([, v]) => v),
  ];
  io.stdout.write(o.json ? toolsJson(report, secrets) : renderTools(report, secrets));
  return toolsExitCode(report);
}
