/**
 * `relay-doctor diagnose`: the core's diagnosis of one gateway (the environment's, or `--gateway NAME`
 * of a file) or of every gateway of a file (`--all --gateways FILE`), one run (diagnoseGateways) and
 * one text report (renderTable) either way. One gateway: its checks against the models given
 * (--chat-model / --native-model) or the file's, the terminal tools' rows, `--json` its report. All:
 * one summary row per gateway (reachability, token, balance, models, generation), each gateway's
 * checks, the fallback targets checked against each gateway's model list; `--json` every gateway.
 * Exit 0 when nothing failed, else 1.
 */
import type { Dispatcher } from 'undici';
import {
  SUMMARY_ASPECTS,
  diagnoseGateways,
  gatewaysToJson,
  hostOf,
  renderTable,
  reportToJson,
  type GatewayProfile,
  type GatewaysDiagnosis,
  type GatewaysDiagnosisInput,
} from '../gateway';
import { t } from '../gateway/l10n';
import { nodeToolsEnvironment, toolStatuses } from '../gateway/tools';
import type { CliConfig } from './config';
import type { GatewaysFile } from './gatewaysFile';
import { cliFix, type CliTerms, type OutputEdge } from './output';
import { toolGatewayOf } from './toolsCommand';

/** Every token the file's gateways take from the environment (to mask wherever they appear). */
export function fileSecrets(file: GatewaysFile, env: Record<string, string | undefined>): string[] {
  return [...file.tokenEnv.values()].map((name) => env[name]?.trim()).filter((v): v is string => !!v);
}

/** How a fix reads for a gateway of the file: its token variable, its entry in the file. */
export function fileTerms(file: GatewaysFile, gateway: { id: string; name: string }): CliTerms {
  return {
    token: t('by exporting {0}=<token>', file.tokenEnv.get(gateway.id) ?? ''),
    baseUrl: t('by correcting the "baseUrl" of "{0}" in {1}', gateway.name, file.path),
    model: t('the "models" of "{0}" in {1}', gateway.name, file.path),
  };
}

/** The fixes in a terminal's terms: each gateway's token variable, its entry in the file. */
function inTerminalTerms(d: GatewaysDiagnosis, file: GatewaysFile): void {
  for (const row of d.rows) {
    const terms = fileTerms(file, row.gateway);
    for (const a of SUMMARY_ASPECTS) {
      const fix = row[a].fix;
      if (fix) row[a] = { ...row[a], fix: cliFix(fix, terms) };
    }
    for (const c of row.report.checks) c.fix = cliFix(c.fix, terms);
  }
}

/** "chat gpt-4o-mini, native claude-sonnet-4-5": the models picked from a token's list. */
function pickedWords(picked: { chat?: string | undefined; native?: string | undefined }): string {
  return [picked.chat && t('chat {0}', picked.chat), picked.native && t('native {0}', picked.native)]
    .filter(Boolean)
    .join(', ');
}

/** What both forms share: the run with the terminal's dispatcher and proxy, a progress line cleared after it. */
async function run(
  input: Omit<GatewaysDiagnosisInput, 'dispatcher' | 'proxy'>,
  io: OutputEdge,
  dispatcher: Dispatcher,
  progress: boolean,
): Promise<GatewaysDiagnosis> {
  const d = await diagnoseGateways({ ...input, dispatcher, proxy: { env: io.env } });
  if (progress) io.progress('');
  return d;
}

/**
 * One gateway: the models to check are as given, else the file's, else the engine picks the first
 * chat and native models the token sees from the list it reads anyway (said on stderr), so that
 * generation is tested and a token that cannot use any model does not pass.
 */
export async function diagnoseOne(
  cfg: CliConfig,
  values: Record<string, unknown>,
  io: OutputEdge,
  dispatcher: Dispatcher,
): Promise<number> {
  const json = values.json === true;
  // The current folder's project files (a cloned repository's) are read only with --trust-project.
  const project = { workspaceDir: io.cwd, workspaceTrusted: values['trust-project'] === true };
  const progress = !json && io.stderr.isTTY === true;
  const given = {
    chat: values['chat-model'] as string | undefined,
    native: values['native-model'] as string | undefined,
  };
  // A gateway of a --gateways file brings its own models; --chat-model / --native-model replace them.
  const gateway: GatewayProfile = {
    ...(cfg.profile ?? { id: 'environment', name: hostOf(cfg.baseUrl) }),
    baseUrl: cfg.baseUrl,
    backupUrls: cfg.backupUrls,
    extraHeaders: cfg.extraHeaders,
    ...(given.chat || given.native ? { models: given } : {}),
  };
  const d = await run(
    {
      gateways: [gateway],
      token: () => cfg.token,
      tokenName: () => cfg.tokenName,
      onPickModels: (_g, picked) => {
        const said = pickedWords(picked);
        // Over a progress line (a terminal, not --json), the line is cleared first.
        if (!json) io.progress('');
        io.stderr.write(
          `relay-doctor: ${said ? t('no --chat-model / --native-model given: checking with the first models this token sees ({0}).', said) : t("no model given, and the token's list has none to pick.")}\n`,
        );
      },
      extras: () => ({
        // the terminal tools' rows, against this gateway (none is set up for a gateway without a token)
        tools: {
          env: io.env,
          statuses: (models) =>
            toolStatuses(
              nodeToolsEnvironment({ env: io.env, ...project }),
              cfg.token ? toolGatewayOf(cfg, models ?? []) : undefined,
            ),
        },
        ...(progress ? { onCheckStart: (_id: string, title: string) => io.progress(t('checking: {0}…', title)) } : {}),
      }),
    },
    io,
    dispatcher,
    progress,
  );
  const secrets = [cfg.token];
  if (json) io.stdout.write(`${JSON.stringify(reportToJson(d.rows[0].report, { secrets }), null, 2)}\n`);
  else io.stdout.write(renderTable(d, { secrets, width: io.stdout.columns || Number(io.env.COLUMNS) || 100 }));
  return d.ok ? 0 : 1;
}

/** Every gateway of the file, each with its own token and models; the fallback targets checked. */
export async function diagnoseAll(
  file: GatewaysFile,
  json: boolean,
  io: OutputEdge,
  dispatcher: Dispatcher,
): Promise<number> {
  const progress = !json && io.stderr.isTTY === true;
  const envOf = (id: string) => file.tokenEnv.get(id)!;
  const d = await run(
    {
      gateways: file.gateways,
      fallbacks: file.fallbacks,
      token: (id) => io.env[envOf(id)]?.trim() || undefined,
      tokenName: envOf,
      noTokenFix: (g) =>
        t(
          '{0} is not set: export the token of "{1}" in it (e.g. read -rs {0} && export {0}); never put it in the file or the arguments.',
          envOf(g.id),
          g.name,
        ),
      onGatewayStart: progress
        ? (g, i, total) => io.progress(t('checking gateway {0} of {1}: {2}…', i + 1, total, g.name))
        : undefined,
      onPickModels: (g, picked) => {
        const said = pickedWords(picked);
        if (progress) io.progress('');
        io.stderr.write(
          `relay-doctor: ${
            said
              ? t(
                  '{0}: no chat or native model in the file: checking with the first models its token sees ({1}).',
                  g.name,
                  said,
                )
              : t("{0}: no model in the file, and its token's list has none to pick.", g.name)
          }\n`,
        );
      },
    },
    io,
    dispatcher,
    progress,
  );
  inTerminalTerms(d, file);
  const secrets = fileSecrets(file, io.env);
  if (json) io.stdout.write(`${JSON.stringify(gatewaysToJson(d, { secrets }), null, 2)}\n`);
  else io.stdout.write(renderTable(d, { secrets, width: io.stdout.columns || Number(io.env.COLUMNS) || 100 }));
  return d.ok ? 0 : 1;
}
