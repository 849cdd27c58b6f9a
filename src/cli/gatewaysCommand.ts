/**
 * `relay-doctor diagnose --all --gateways FILE`: today's diagnosis once per gateway of the file, one
 * summary row per gateway (reachability, token, balance, models, generation) and the fallback
 * targets checked against each gateway's model list. Exit 0 when nothing failed, else 1.
 */
import type { Dispatcher } from 'undici';
import {
  SUMMARY_ASPECTS,
  diagnoseGateways,
  gatewaysToJson,
  renderGatewaysTable,
  type GatewaysDiagnosis,
} from '../gateway';
import { t } from '../gateway/l10n';
import type { GatewaysFile } from './gatewaysFile';
import { cliFix, type CliTerms, type OutputEdge } from './output';

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

export async function diagnoseAll(
  file: GatewaysFile,
  json: boolean,
  io: OutputEdge,
  dispatcher: Dispatcher,
): Promise<number> {
  const progress = !json && io.stderr.isTTY;
  const envOf = (id: string) => file.tokenEnv.get(id)!;
  const d = await diagnoseGateways({
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
    dispatcher,
    proxy: { env: io.env },
    onGatewayStart: progress
      ? (g, i, total) => io.progress(t('checking gateway {0} of {1}: {2}…', i + 1, total, g.name))
      : undefined,
    onPickModels: (g, picked) => {
      const said = [picked.chat && t('chat {0}', picked.chat), picked.native && t('native {0}', picked.native)]
        .filter(Boolean)
        .join(', ');
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
  });
  if (progress) io.progress('');
  inTerminalTerms(d, file);
  const secrets = fileSecrets(file, io.env);
  if (json) io.stdout.write(`${JSON.stringify(gatewaysToJson(d, { secrets }), null, 2)}\n`);
  else io.stdout.write(renderGatewaysTable(d, { secrets, width: io.stdout.columns || Number(io.env.COLUMNS) || 100 }));
  return d.ok ? 0 : 1;
}
