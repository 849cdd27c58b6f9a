/**
 * relay-doctor: the diagnosis engine and the client core in a terminal or CI.
 *
 *   relay-doctor diagnose [--chat-model M] [--native-model M] [--json] [--trust-project]   exit 0 / 1 (a check failed) / 2 (usage)
 *   relay-doctor models [--json]                                          with prices and groups where published
 *   relay-doctor quota [--json]
 *   relay-doctor usage [--json] [--since 24h|7d|30d]
 *   relay-doctor receipts [--json] [--since 24h|7d|30d]                  exit 1 when a check of a record is inconsistent
 *   relay-doctor tools [--json] [--trust-project]                         exit 1 when a set-up terminal tool would fail
 *   relay-doctor chat --surface compatible|native|responses --model M [--max-tokens N] [--no-stream] [--receipt] "prompt"
 *   relay-doctor diagnose --all --gateways FILE [--json]                 exit 1 when any gateway or fallback target failed
 *   relay-doctor diagnose|models|quota|usage|receipts|chat|tools --gateways FILE --gateway NAME …
 *   relay-doctor --version
 *
 * Exit codes: 0 success, 1 a check or request failed, 2 a usage error, 3 a request failed after it may
 * have reached the gateway and been billed (`BILLED_EXIT`: never sent again by the client; running the
 * command again sends it again); `chat` also 4 / 5 / 6 for an answer cut by max tokens, stopped by a
 * content filter or ended with another finish reason (`ENDING_EXIT`, output.ts).
 *
 * Configuration comes only from the environment: MODEL_RELAY_BASE_URL, MODEL_RELAY_TOKEN,
 * MODEL_RELAY_BACKUP_URLS (comma separated); HTTPS_PROXY / HTTP_PROXY / NO_PROXY are honoured.
 * Or from a gateways file (gatewaysFile.ts) whose gateways name the variables holding their tokens.
 * The terminal tools' files in the current folder (.claude/settings.json, opencode.json, …) may be a
 * cloned repository's: `tools` and `diagnose` read them only with --trust-project.
 * Nothing it prints ever contains the full token.
 */
import { parseArgs } from 'node:util';
import type { Dispatcher } from 'undici';
import {
  GatewayClient,
  bundledCountText,
  createDispatcher,
  describeProxy,
  isGatewayError,
  redactSecrets,
  type RequestLogSink,
} from '../gateway';
import { ENV_TOKEN, UsageError, configFor, readConfig, refuseTokenArguments, type CliConfig } from './config';
import { chatCommand } from './chatCommand';
import { diagnoseAll, diagnoseOne, fileSecrets, fileTerms } from './diagnoseCommand';
import { pickGateway, readGatewaysFile, type GatewaysFile } from './gatewaysFile';
import {
  baseUrlWarnings,
  errorText,
  outputEdge,
  retryLine,
  surfaceMoveLine,
  type CliTerms,
  type OutputEdge,
} from './output';
import { models } from './modelsCommand';
import { toolsCommand } from './toolsCommand';
import { quota } from './quotaCommand';
import { isSince, usageCommand } from './usageCommand';
import { receiptsCommand } from './receiptsCommand';
import { applyLocale } from './locale';
import { usage } from './help';
import { isHelpFlag, isVersionFlag, version } from './usage';
import { t } from '../gateway/l10n';

export { usage };

export interface CliIo {
  argv: string[];
  env: Record<string, string | undefined>;
  cwd: string;
  stdout: { write(s: string): unknown; columns?: number | undefined; isTTY?: boolean | undefined };
  stderr: { write(s: string): unknown; isTTY?: boolean | undefined };
}

type Command = 'diagnose' | 'models' | 'quota' | 'usage' | 'receipts' | 'chat' | 'tools';
const COMMANDS: readonly Command[] = ['diagnose', 'models', 'quota', 'usage', 'receipts', 'chat', 'tools'];
const isCommand = (s: string): s is Command => (COMMANDS as readonly string[]).includes(s);

function parse(command: Command, args: string[]) {
  const options = {
    json: { type: 'boolean' },
    'chat-model': { type: 'string' },
    'native-model': { type: 'string' },
    surface: { type: 'string' },
    model: { type: 'string' },
    'max-tokens': { type: 'string' },
    'no-stream': { type: 'boolean' },
    receipt: { type: 'boolean' },
    gateways: { type: 'string' },
    gateway: { type: 'string' },
    all: { type: 'boolean' },
    since: { type: 'string' },
    'trust-project': { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  } as const;
  const allowed: Record<Command, string[]> = {
    diagnose: ['json', 'chat-model', 'native-model', 'gateways', 'gateway', 'all', 'trust-project', 'help'],
    models: ['json', 'gateways', 'gateway', 'help'],
    quota: ['json', 'gateways', 'gateway', 'help'],
    usage: ['json', 'since', 'gateways', 'gateway', 'help'],
    receipts: ['json', 'since', 'gateways', 'gateway', 'help'],
    chat: ['surface', 'model', 'max-tokens', 'no-stream', 'receipt', 'gateways', 'gateway', 'help'],
    tools: ['json', 'gateways', 'gateway', 'trust-project', 'help'],
  };
  let parsed;
  try {
    parsed = parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (e) {
    throw new UsageError(`${(e as Error).message.split('\n')[0]}`); // Node's own wording
  }
  for (const k of Object.keys(parsed.values)) {
    if (!allowed[command].includes(k)) throw new UsageError(t('The option --{0} does not apply to "{1}".', k, command));
  }
  for (const k of ['chat-model', 'native-model', 'surface', 'model', 'max-tokens', 'gateways', 'gateway'] as const) {
    const v = parsed.values[k];
    if (v !== undefined && !v.trim()) throw new UsageError(t('--{0} needs a value.', k));
  }
  if (parsed.values.since !== undefined && !isSince(parsed.values.since))
    throw new UsageError(t('--since takes 24h, 7d or 30d (got "{0}").', parsed.values.since));
  return parsed;
}

function clientFor(cfg: CliConfig, dispatcher: Dispatcher, io: CliIo, onRequest?: RequestLogSink): GatewayClient {
  io.stderr.write(baseUrlWarnings(cfg.baseUrl, cfg.profile ? t('gateway "{0}"', cfg.profile.name) : undefined));
  return new GatewayClient({
    gatewayName: cfg.profile?.name,
    baseUrl: cfg.baseUrl,
    backupUrls: cfg.backupUrls,
    token: () => cfg.token,
    extraHeaders: cfg.extraHeaders,
    dispatcher,
    onRetry: (n) => void io.stderr.write(retryLine(n)),
    onSurfaceMove: (m) => void io.stderr.write(surfaceMoveLine(m)),
    // a sink hears the calls (chat --receipt): each chat's input is counted for its receipt
    ...(onRequest ? { onRequest, countText: bundledCountText() } : {}),
  });
}

/** `relay-doctor tools`' options: --json, and --trust-project (read the current folder's project files). */
function toolsOptions(values: Record<string, unknown>): { json: boolean; trustProject: boolean } {
  return { json: values.json === true, trustProject: values['trust-project'] === true };
}

/** What a command runs against: one gateway (the environment's, or one of a file), or a whole file (diagnose --all). */
type Target = { cfg: CliConfig; file?: GatewaysFile | undefined } | { cfg?: undefined; file: GatewaysFile };

/** The environment's gateway, or the file's: `--gateways FILE` with `--gateway NAME` or `--all`. */
async function targetOf(command: Command, values: Record<string, unknown>, io: CliIo): Promise<Target> {
  const path = values.gateways as string | undefined;
  const ref = values.gateway as string | undefined;
  if (!path) {
    if (ref !== undefined || values.all)
      throw new UsageError(t('--{0} needs --gateways FILE.', ref !== undefined ? 'gateway' : 'all'));
    return { cfg: readConfig(io.env) };
  }
  if (values.all && ref !== undefined) throw new UsageError(t('Give either --all or --gateway NAME, not both.'));
  const file = await readGatewaysFile(path, io.cwd);
  if (values.all) {
    if (values['chat-model'] !== undefined || values['native-model'] !== undefined)
      throw new UsageError(
        t(
          'With --all, each gateway\'s models come from the file (its "models"), not from --chat-model / --native-model.',
        ),
      );
    return { file };
  }
  const profile = pickGateway(file, ref);
  return { cfg: configFor(profile, file.tokenEnv.get(profile.id)!, io.env), file };
}

/** Runs one command against its target. */
async function runCommand(
  command: Command,
  target: Target,
  parsed: { values: Record<string, unknown>; positionals: string[] },
  io: OutputEdge,
  dispatcher: Dispatcher,
): Promise<number> {
  const { values } = parsed;
  if (!target.cfg) return diagnoseAll(target.file, values.json === true, io, dispatcher);
  const cfg = target.cfg;
  switch (command) {
    case 'diagnose':
      return diagnoseOne(cfg, values, io, dispatcher);
    case 'models':
      return models(clientFor(cfg, dispatcher, io), values.json === true, io);
    case 'quota':
      return quota(clientFor(cfg, dispatcher, io), values.json === true, io.stdout);
    case 'usage':
      return usageCommand(
        clientFor(cfg, dispatcher, io),
        { json: values.json === true, since: isSince(values.since) ? values.since : undefined },
        io.stdout,
      );
    case 'receipts':
      return receiptsCommand(
        clientFor(cfg, dispatcher, io),
        { json: values.json === true, since: isSince(values.since) ? values.since : undefined },
        io.stdout,
      );
    case 'chat':
      return chatCommand(
        { cfg, file: target.file, client: (onRequest) => clientFor(cfg, dispatcher, io, onRequest) },
        parsed,
        io,
        dispatcher,
      );
    case 'tools':
      return toolsCommand(
        { cfg, client: clientFor(cfg, dispatcher, io), dispatcher, file: target.file },
        toolsOptions(values),
        io,
      );
    default: {
      const _exhaustive: never = command;
      throw new UsageError(t('Unknown command "{0}".', String(_exhaustive)));
    }
  }
}

/** Why a command that needs the token cannot run: its variable is not set. */
function missingToken(cfg: CliConfig | undefined): string {
  return cfg?.profile
    ? t(
        '{0} is not set. Export the token of gateway "{1}" in it (never as an argument or in the file).',
        cfg.tokenName,
        cfg.profile.name,
      )
    : t('{0} is not set. Export the token in the environment (never as an argument).', ENV_TOKEN);
}

/**
 * The exit code of a request that failed after it may have reached the gateway and been billed
 * (GatewayError.mayHaveBeenBilled): a script that retries on 1 must not retry it blindly.
 */
export const BILLED_EXIT = 3;

/** Runs the program; returns the exit code. */
export async function main(given: CliIo): Promise<number> {
  // Everything leaves by the output edge: text without the gateway's control characters (JSON once --json is read).
  let io = outputEdge(given, false);
  const [command, ...rest] = io.argv;
  let secrets: string[] = [];
  let terms: Partial<CliTerms> = {};
  let dispatcher: Dispatcher | undefined;
  applyLocale(io.env);
  try {
    refuseTokenArguments(io.argv);
    if (!command || isHelpFlag(command)) {
      io.stdout.write(usage());
      return command ? 0 : 2;
    }
    if (isVersionFlag(command) && !rest.length) {
      io.stdout.write(`relay-doctor ${version()}\n`);
      return 0;
    }
    if (!isCommand(command)) throw new UsageError(t('Unknown command "{0}".', command));
    const parsed = parse(command, rest);
    io = outputEdge(given, parsed.values.json === true);
    if (parsed.values.help) {
      io.stdout.write(usage());
      return 0;
    }
    if (command !== 'chat' && parsed.positionals.length)
      throw new UsageError(t('"{0}" takes no arguments (got "{1}").', command, parsed.positionals[0]));
    const target = await targetOf(command, parsed.values, io).catch((e: unknown) => {
      // `tools` without a gateway still reads the tools' states (nothing is sent), and says why.
      if (command === 'tools' && e instanceof UsageError && parsed.values.gateways === undefined) return e;
      throw e;
    });
    if (target instanceof UsageError)
      return await toolsCommand({ why: target.message }, toolsOptions(parsed.values), io);
    secrets = target.file ? fileSecrets(target.file, io.env) : [target.cfg?.token ?? ''].filter(Boolean);
    if (target.file && target.cfg?.profile) terms = fileTerms(target.file, target.cfg.profile);
    if (command === 'tools' && !target.cfg?.token)
      return await toolsCommand({ why: missingToken(target.cfg) }, toolsOptions(parsed.values), io);
    if (command !== 'diagnose' && !target.cfg?.token) throw new UsageError(missingToken(target.cfg));
    const proxy = describeProxy({ env: io.env });
    if (proxy.invalid)
      io.stderr.write(
        `relay-doctor: ${t('warning: the proxy "{0}" (HTTPS_PROXY / HTTP_PROXY) cannot be used: {1}. Requests go directly.', proxy.display ?? '', proxy.invalid)}\n`,
      );
    dispatcher = createDispatcher({ env: io.env });
    return await runCommand(command, target, parsed, io, dispatcher);
  } catch (e) {
    if (e instanceof UsageError) {
      io.stderr.write(`relay-doctor: ${redactSecrets(e.message, secrets)}\n\n${usage()}`);
      return 2;
    }
    io.stderr.write(errorText(e, secrets, terms));
    return isGatewayError(e) && e.mayHaveBeenBilled ? BILLED_EXIT : 1;
  } finally {
    await dispatcher?.close().catch(() => undefined);
  }
}
