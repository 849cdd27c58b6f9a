/**
 * What relay-doctor writes: errors with cause and fix in a terminal's terms (environment variables,
 * not VS Code commands), retry and base-URL notes, and gateway text made safe for a terminal.
 */
import {
  answerEnding,
  endingWords,
  isGatewayError,
  normalizeBaseUrl,
  redactSecrets,
  surfaceMoveWords,
  type AnswerEnding,
  type RetryNotice,
  type SurfaceMove,
} from '../gateway';
import { tidySpacing } from '../gateway/diagnose/textWidth';
import { t } from '../gateway/l10n';
import { ENV_BASE_URL, ENV_TOKEN } from './config';

/** Escape sequences and other control characters a gateway could send to a terminal (newlines and tabs stay). */
const CONTROL = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b[\]P^_][^\x07\x1b]*(\x07|\x1b\\)?|[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;

/** Gateway-controlled text for a terminal: control characters removed when writing to a TTY. */
export function terminalSafe(text: string, isTTY: boolean | undefined): string {
  return isTTY ? text.replace(CONTROL, '') : text;
}

/** What a fix tells a terminal user to change, where the core names a VS Code command or setting. */
export interface CliTerms {
  /** how to set the token (default: by exporting MODEL_RELAY_TOKEN=<token>) */
  token: string;
  /** how to correct the base URL (default: by exporting MODEL_RELAY_BASE_URL=<root address>) */
  baseUrl: string;
  /** where a model is chosen (default: --model) */
  model: string;
}

/** The core's fixes name VS Code commands and settings; in a terminal the environment (or the gateways file) is what changes. */
export function cliFix(fix: string, terms: Partial<CliTerms> = {}): string {
  const token = terms.token ?? t('by exporting {0}=<token>', ENV_TOKEN);
  const baseUrl = terms.baseUrl ?? t('by exporting {0}=<root address>', ENV_BASE_URL);
  return (
    fix
      .replace(/(with |run )?"Model Relay: Add Token"( \([^)]*\))?/g, token)
      .replace(/(with |run )?"Model Relay: Configure Base URL"/g, baseUrl)
      // The same commands in a Chinese fix: “用“…”保存” becomes “导出 …”.
      .replace(/(?:用|使用|运行)?\s*“Model Relay: Add Token”(?:\s*（[^）]*）)?(?:保存|添加)?/g, token)
      .replace(/(?:用|使用|运行)?\s*“Model Relay: Configure Base URL”(?:设置|配置)?/g, baseUrl)
      .replace(/modelRelay\.models\.(chat|native|image|imageEdit|video)/g, terms.model ?? '--model')
      .replace(/\(modelRelay\.stream\)|modelRelay\.stream/g, '--no-stream')
  );
}

/** An error for stderr: cause, fix (in a terminal's terms), billing note; every secret of `secrets` masked. */
export function errorText(
  e: unknown,
  secrets: ReadonlyArray<string | undefined>,
  isTTY?: boolean,
  terms: Partial<CliTerms> = {},
): string {
  if (isGatewayError(e)) {
    const head =
      e.status !== undefined
        ? t('error ({0}, HTTP {1}): {2}', e.kind, e.status, e.message)
        : t('error ({0}): {1}', e.kind, e.message);
    const lines = [
      `relay-doctor: ${head}`,
      `  ${t('cause: {0}', e.reason)}`,
      `  ${t('fix: {0}', cliFix(e.fix, terms))}`,
    ];
    const billing = e.billingNote();
    if (billing) {
      lines.push(`  ${t('billing: {0}', billing)}`);
      // The one way it is sent again: the user runs it again (exit code 3 says why it stopped).
      lines.push(`  ${t('retry: run the same command again to send it once more; it may be billed again.')}`);
    }
    if (e.url) lines.push(`  url: ${e.url}`);
    if (e.requestId) lines.push(`  ${t('request id: {0}', e.requestId)}`);
    if (e.retryAfterMs !== undefined) lines.push(`  ${t('retry after: {0} s', Math.ceil(e.retryAfterMs / 1000))}`);
    if (e.maskedToken) lines.push(`  ${t('token: {0}', e.maskedToken)}`);
    return terminalSafe(redactSecrets(tidySpacing(lines.join('\n')) + '\n', secrets), isTTY);
  }
  const explained = e as { message?: unknown; cause?: unknown; fix?: unknown };
  if (e instanceof Error && typeof explained.cause === 'string' && typeof explained.fix === 'string') {
    return terminalSafe(
      redactSecrets(
        `relay-doctor: ${t('error: {0}', e.message)}\n  ${t('cause: {0}', explained.cause)}\n  ${t('fix: {0}', explained.fix)}\n`,
        secrets,
      ),
      isTTY,
    );
  }
  return terminalSafe(
    redactSecrets(`relay-doctor: ${t('error (internal): {0}', e instanceof Error ? e.message : String(e))}\n`, secrets),
    isTTY,
  );
}

/** "HTTP 429: retrying in 3 s (retry 1 of 2)" — said where the client waits. */
export function retryLine(n: RetryNotice): string {
  const what = n.error.status !== undefined ? `HTTP ${n.error.status}` : n.error.kind;
  return `relay-doctor: ${t('{0}: retrying in {1} s (retry {2} of {3})', what, Math.max(1, Math.round(n.delayMs / 1000)), n.attempt, n.maxRetries)}\n`;
}

/** The stderr line of a request moved to the surface its model answers on (stdout keeps only the reply). */
export function surfaceMoveLine(m: SurfaceMove, tty: boolean | undefined): string {
  return terminalSafe(`relay-doctor: ${surfaceMoveWords(m)}\n`, tty);
}

/** Warnings for a base URL the endpoint rules had to correct (the request goes to the corrected address). */
export function baseUrlWarnings(baseUrl: string, what: string = ENV_BASE_URL): string {
  const n = normalizeBaseUrl(baseUrl);
  return n.findings
    .filter((f) => f.severity !== 'info')
    .map((f) => `relay-doctor: ${t('warning: {0}: {1} Using {2}.', what, f.message, n.base ?? '')}\n`)
    .join('');
}

/**
 * `relay-doctor chat`'s exit code for an answer that did not simply end (0 success, 1 failure, 2 usage,
 * 3 a failure that may have been billed): a script can tell a cut answer from a whole one.
 */
export const ENDING_EXIT = { budget: 4, filter: 5, other: 6 } as const satisfies Record<
  Exclude<AnswerEnding, 'complete'>,
  number
>;

/** How a chat answer ended (the core's rule): its stderr line when it did not simply end, and the exit code. */
export function chatEnding(
  finishReason: string | undefined,
  maxTokens: number | undefined,
): { code: number; line?: string } {
  const ending = answerEnding(finishReason);
  if (ending === 'complete') return { code: 0 };
  return { code: ENDING_EXIT[ending], line: `relay-doctor: ${endingWords(finishReason, maxTokens)}\n` };
}
