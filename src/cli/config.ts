/**
 * relay-doctor's configuration: only from the environment. A token on the command line is refused
 * (it would land in shell history and in process lists other users can read).
 */
import { normalizeBaseUrl, type GatewayProfile } from '../gateway';
import { t } from '../gateway/l10n';
import { ENV_BACKUP_URLS, ENV_BASE_URL, ENV_TOKEN } from './usage';

export { ENV_BACKUP_URLS, ENV_BASE_URL, ENV_TOKEN };

/** A mistake in how the program was called: exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export interface CliConfig {
  baseUrl: string;
  token: string | undefined;
  backupUrls: string[];
  /** the environment variable the token came from (MODEL_RELAY_TOKEN, or a gateway's tokenEnv) */
  tokenName: string;
  extraHeaders?: Record<string, string> | undefined;
  /** the gateway of a --gateways file this configuration is for */
  profile?: GatewayProfile | undefined;
}

/** One gateway of a --gateways file, its token read from the variable its tokenEnv names. */
export function configFor(
  profile: GatewayProfile,
  tokenEnv: string,
  env: Record<string, string | undefined>,
): CliConfig {
  return {
    baseUrl: profile.baseUrl,
    backupUrls: profile.backupUrls ?? [],
    token: env[tokenEnv]?.trim() || undefined,
    tokenName: tokenEnv,
    extraHeaders: profile.extraHeaders,
    profile,
  };
}

const TOKEN_OPTION = /^--?(token|api[-_]?key|auth[-_]?token|key|bearer|secret)(=.*)?$/i;
const TOKEN_VALUE = /\bsk-[A-Za-z0-9_-]{8,}/;

/** Throws a UsageError when any argument is or carries a token. Never echoes the value. */
export function refuseTokenArguments(argv: readonly string[]): void {
  for (const a of argv) {
    const opt = TOKEN_OPTION.exec(a);
    if (opt || TOKEN_VALUE.test(a)) {
      const what = opt ? t('the option --{0}', opt[1]) : t('an argument that looks like a token (sk-…)');
      throw new UsageError(
        t(
          'A token must not be given on the command line ({0} was given). A token in the arguments lands in your shell history and is visible to other users in process lists (ps). Set it in the environment instead: export {1}=… (e.g. read -rs {1} && export {1}), and revoke the token in the gateway console if it was exposed.',
          what,
          ENV_TOKEN,
        ),
      );
    }
  }
}

export function readConfig(env: Record<string, string | undefined>): CliConfig {
  const baseUrl = env[ENV_BASE_URL]?.trim();
  if (!baseUrl) {
    throw new UsageError(
      t(
        '{0} is not set. Set it to the gateway root address, e.g. export {0}=https://gateway.example.com (no /v1).',
        ENV_BASE_URL,
      ),
    );
  }
  const backupUrls = (env[ENV_BACKUP_URLS] ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const n = normalizeBaseUrl(baseUrl);
  if (!n.base)
    throw new UsageError(
      t(
        '{0} is not a usable address: {1} {2}',
        ENV_BASE_URL,
        n.findings[0]?.message ?? t('invalid'),
        n.findings[0]?.fix ?? '',
      ).trim(),
    );
  const token = env[ENV_TOKEN]?.trim() || undefined;
  return { baseUrl: env[ENV_BASE_URL]!, token, backupUrls, tokenName: ENV_TOKEN };
}
