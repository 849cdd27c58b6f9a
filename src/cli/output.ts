/**
 * What relay-doctor writes, and the one edge it leaves by (`outputEdge`): errors with cause and fix in
 * a terminal's terms (environment variables, not VS Code commands), retry, base-URL and ending notes;
 * and no control character of the gateway's in text output, wherever it goes.
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
import type { CliIo } from './main';

/**
 * What a terminal (or a pager reading the file later) would act on rather than show: escape sequences
 * (CSI, also as the C1 character; OSC, DCS, SOS, PM, APC with their terminator), every other C0 and C1
 * control character but newline and tab — a carriage return too — and the bidi overrides and
 * isolates that reorder what is shown.
 */
const CONTROL =
  /\x1b\[[0-?]*[ -/]*[@-~]|\x9b[0-?]*[ -/]*[@-~]|\x1b[\]PX^_][^\x07\x1b]*(?:\x07|\x1b\\)?|[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g;

/** Text output as it leaves: the gateway's text (model ids, its words, a reply) without control characters. */
export function plainText(text: string): string {
  return text.replace(CONTROL, '');
}

/**
 * JSON output as it leaves: the same JSON value, with the characters JSON.stringify leaves raw that a
 * terminal acts on (C1 controls, bidi overrides, the line and paragraph separators) escaped as `\u…`.
 */
export function jsonText(json: string): string {
  return json.replace(
    /[\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** The program's output: text made plain on its way out (JSON escaped), and the progress line of a terminal. */
export interface OutputEdge extends CliIo {
  /** clears the terminal's line and shows `text` on it (plain); nothing when stderr is not a terminal */
  progress(text: string): void;
}

/**
 * The one edge relay-doctor's output leaves by: stderr is text; stdout is text, or JSON with `--json`.
 * Only `progress` writes the program's own terminal controls.
 */
export function outputEdge(io: CliIo, json: boolean): OutputEdge {
  return {
    ...io,
    stdout: {
      write: (s: string) => io.stdout.write(json ? jsonText(s) : plainText(s)),
      columns: io.stdout.columns,
      isTTY: io.stdout.isTTY,
    },
    stderr: { write: (s: string) => io.stderr.write(plainText(s)), isTTY: io.stderr.isTTY },
    progress: (text: string) => {
      if (io.stderr.isTTY) io.stderr.write(`\r\x1b[2K${plainText(text)}`);
    },
  };
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
    return redactSecrets(tidySpacing(lines.join('\n')) + '\n', secrets);
  }
  const explained = e as { message?: unknown; cause?: unknown; fix?: unknown };
  if (e instanceof Error && typeof explained.cause === 'string' && typeof explained.fix === 'string') {
    return redactSecrets(
      `relay-doctor: ${t('error: {0}', e.message)}\n  ${t('cause: {0}', explained.cause)}\n  ${t('fix: {0}', explained.fix)}\n`,
      secrets,
    );
  }
  return redactSecrets(
    `relay-doctor: ${t('error (internal): {0}', e instanceof Error ? e.message : String(e))}\n`,
    secrets,
  );
}

/** "HTTP 429: retrying in 3 s (retry 1 of 2)" — said where the client waits. */
export function retryLine(n: RetryNotice): string {
  const what = n.error.status !== undefined ? `HTTP ${n.error.status}` : n.error.kind;
  return `relay-doctor: ${t('{0}: retrying in {1} s (retry {2} of {3})', what, Math.max(1, Math.round(n.delayMs / 1000)), n.attempt, n.maxRetries)}\n`;
}

/** The stderr line of a request moved to the surface its model answers on (stdout keeps only the reply). */
export function surfaceMoveLine(m: SurfaceMove): string {
  return `relay-doctor: ${surfaceMoveWords(m)}\n`;
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
