/**
 * What relay-doctor knows without touching the network: its version, flags and environment
 * variable names (the usage text is help.ts). Nothing here imports the core or even the translation
 * function, so `relay-doctor --version` starts without loading undici, zod or the client (see entry.ts).
 */
export const ENV_BASE_URL = 'MODEL_RELAY_BASE_URL';
export const ENV_TOKEN = 'MODEL_RELAY_TOKEN';
export const ENV_BACKUP_URLS = 'MODEL_RELAY_BACKUP_URLS';

/** Set by the bundler (scripts/build.mjs); read from package.json when running unbundled. */
declare const RELAY_DOCTOR_VERSION: string | undefined;

export function version(): string {
  if (typeof RELAY_DOCTOR_VERSION === 'string') return RELAY_DOCTOR_VERSION;
  /* eslint-disable @typescript-eslint/no-require-imports -- only when running unbundled */
  const fs = require('node:fs') as typeof import('node:fs');
  const path = require('node:path') as typeof import('node:path');
  /* eslint-enable @typescript-eslint/no-require-imports */
  for (const up of ['..', '../..', '../../..']) {
    try {
      const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, up, 'package.json'), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (pkg.name === 'model-relay' && pkg.version) return pkg.version;
    } catch {
      /* not here */
    }
  }
  return 'unknown';
}

export const isVersionFlag = (a: string | undefined) => a === '--version' || a === '-V' || a === 'version';
export const isHelpFlag = (a: string | undefined) => a === '--help' || a === '-h' || a === 'help';

/**
 * How long `chat --receipt` waits for the call's record in the gateway's usage log, and how many reads it
 * spends at most (the log is read at most once a minute, within the rate limit it shares with the balance):
 * one read once the record is due, one more a minute later.
 */
export const RECEIPT_WAIT = { ms: 70_000, reads: 2 } as const;
