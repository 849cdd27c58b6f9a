/**
 * What relay-doctor writes: errors with cause and fix in a terminal's terms (environment variables,
 * not VS Code commands), retry and base-URL notes, and gateway text made safe for a terminal.
 */
import { isGatewayError, normalizeBaseUrl, redactSecrets, type RetryNotice } from '../gateway';
import { ENV_BASE_URL, ENV_TOKEN } from './config';

/** Escape sequences and other control characters a gateway could send to a terminal (newlines and tabs stay). */
const CONTROL = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b[\]P^_][^\x07\x1b]*(\x07|\x1b\\)?|[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;

/** Gateway-controlled text for a terminal: control characters removed when writing to a TTY. */
export function terminalSafe(text: string, isTTY: boolean | undefined): string {
  return isTTY ? text.replace(CONTROL, '') : text;
}

/** The core's fixes name VS Code commands and settings; in a terminal the environment is what changes. */
export function cliFix(fix: string): string {
  return fix
    .replace(/(with |run )?"Model Relay: Add Token"( \([^)]*\))?/g, `by exporting ${ENV_TOKEN}=<token>`)
    .replace(/(with |run )?"Model Relay: Configure Base URL"/g, `by exporting ${ENV_BASE_URL}=<root address>`)
    .replace(/modelRelay\.models\.(chat|native|image|imageEdit|video)/g, '--model')
    .replace(/\(modelRelay\.stream\)|modelRelay\.stream/g, '--no-stream');
}

export function errorText(e: unknown, token: string | undefined, isTTY?: boolean): string {
  if (isGatewayError(e)) {
    const lines = [`relay-doctor: error (${e.kind}${e.status !== undefined ? `, HTTP ${e.status}` : ''}): ${e.message}`, `  cause: ${e.cause}`, `  fix: ${cliFix(e.fix)}`];
    const billing = e.billingNote();
    if (billing) lines.push(`  billing: ${billing}`);
    if (e.url) lines.push(`  url: ${e.url}`);
    if (e.requestId) lines.push(`  request id: ${e.requestId}`);
    if (e.retryAfterMs !== undefined) lines.push(`  retry after: ${Math.ceil(e.retryAfterMs / 1000)} s`);
    if (e.maskedToken) lines.push(`  token: ${e.maskedToken}`);
    return terminalSafe(redactSecrets(lines.join('\n') + '\n', [token]), isTTY);
  }
  const explained = e as { message?: unknown; cause?: unknown; fix?: unknown };
  if (e instanceof Error && typeof explained.cause === 'string' && typeof explained.fix === 'string') {
    return terminalSafe(redactSecrets(`relay-doctor: error: ${e.message}\n  cause: ${explained.cause}\n  fix: ${explained.fix}\n`, [token]), isTTY);
  }
  return terminalSafe(redactSecrets(`relay-doctor: error (internal): ${e instanceof Error ? e.message : String(e)}\n`, [token]), isTTY);
}

/** "HTTP 429: retrying in 3 s (retry 1 of 2)" — said where the client waits. */
export function retryLine(n: RetryNotice): string {
  const what = n.error.status !== undefined ? `HTTP ${n.error.status}` : n.error.kind;
  return `relay-doctor: ${what}: retrying in ${Math.max(1, Math.round(n.delayMs / 1000))} s (retry ${n.attempt} of ${n.maxRetries})\n`;
}

/** Warnings for a base URL the endpoint rules had to correct (the request goes to the corrected address). */
export function baseUrlWarnings(baseUrl: string): string {
  const n = normalizeBaseUrl(baseUrl);
  return n.findings
    .filter((f) => f.severity !== 'info')
    .map((f) => `relay-doctor: warning: ${ENV_BASE_URL}: ${f.message} Using ${n.base}.\n`)
    .join('');
}
