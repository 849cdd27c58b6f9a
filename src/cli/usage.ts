/**
 * What relay-doctor says without touching the network: its usage text, version and environment
 * variable names. Nothing here imports the core, so `relay-doctor --version` and `--help` start
 * without loading undici, zod or the client (see entry.ts).
 */
export const ENV_BASE_URL = 'MODEL_RELAY_BASE_URL';
export const ENV_TOKEN = 'MODEL_RELAY_TOKEN';
export const ENV_BACKUP_URLS = 'MODEL_RELAY_BACKUP_URLS';

export const USAGE = `relay-doctor — diagnose and use a Model Relay gateway from a terminal

Usage:
  relay-doctor diagnose [--chat-model M] [--native-model M] [--json]
  relay-doctor models [--json]
  relay-doctor quota [--json]       what is left on the token, and when it expires
  relay-doctor chat --surface compatible|native --model M [--max-tokens N] [--no-stream] "prompt"
  relay-doctor --version

Environment:
  ${ENV_BASE_URL}     the gateway root address (e.g. https://gateway.example.com, no /v1)
  ${ENV_TOKEN}        the token (sk-…); never pass it as an argument
  ${ENV_BACKUP_URLS}  optional backup domains, comma separated
  HTTPS_PROXY / HTTP_PROXY / NO_PROXY are honoured.

Exit codes: 0 success (diagnose: no check failed), 1 a check or request failed, 2 usage error.
`;

/** Set by the bundler (scripts/build.mjs); read from package.json when running unbundled. */
declare const RELAY_DOCTOR_VERSION: string | undefined;

export function version(): string {
  if (typeof RELAY_DOCTOR_VERSION === 'string') return RELAY_DOCTOR_VERSION;
  const { readFileSync } = require('node:fs') as typeof import('node:fs');
  const { join } = require('node:path') as typeof import('node:path');
  for (const up of ['..', '../..', '../../..']) {
    try {
      const pkg = JSON.parse(readFileSync(join(__dirname, up, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'model-relay' && pkg.version) return pkg.version;
    } catch {
      /* not here */
    }
  }
  return 'unknown';
}

export const isVersionFlag = (a: string | undefined) => a === '--version' || a === '-V' || a === 'version';
export const isHelpFlag = (a: string | undefined) => a === '--help' || a === '-h' || a === 'help';
