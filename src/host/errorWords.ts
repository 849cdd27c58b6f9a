/**
 * Where a core error becomes words for the UI: the chat's error card, the chat participant's
 * markdown, one-line summaries (model list, video tasks, VS Code's language model API) and the
 * notification text. src/extension/errorPresenter.ts shows the notification; nothing else builds
 * error UI from a GatewayError. Plain Node, no `vscode`.
 */
import { GatewayError, redactSecrets } from '../gateway';
import { t } from '../gateway/l10n';
import type { ChatErrorInfo } from '../shared/chatProtocol';

/** Thrown inside the chat session when a stream failed outright: its card offers a plain retry. */
export class StreamFailed extends Error {
  constructor(readonly info: ChatErrorInfo) {
    super(info.message);
  }
}

export function shortError(e: GatewayError): string {
  switch (e.detail) {
    case 'stream_truncated':
      return t('it broke off before its end marker');
    case 'stream_error_event':
      return e.gatewayMessage
        ? t('the gateway sent an error inside it: {0}', e.gatewayMessage)
        : t('the gateway sent an error inside it');
    case 'idle_timeout':
      return t('it went silent');
    default:
      return e.message;
  }
}

/** A core error (or anything else) as the chat's error card shows it. Never carries a token. */
export function errorInfo(e: unknown): ChatErrorInfo {
  if (e instanceof StreamFailed) return e.info;
  if (e instanceof GatewayError) {
    return {
      kind: e.kind,
      status: e.status,
      message: e.message,
      cause: e.reason,
      fix: e.fix,
      detail: e.detail,
      gatewayMessage: e.gatewayMessage,
      requestId: e.requestId,
      url: e.url,
      host: e.host,
      surface: e.surface,
      model: e.model,
      maskedToken: e.maskedToken,
      attempts: e.attempts,
      billing: e.billingNote(),
    };
  }
  const message = redactSecrets(e instanceof Error ? e.message : String(e), []);
  return {
    kind: 'internal',
    message,
    cause: t('An unexpected error inside the extension: {0}', message),
    fix: t('Show the request log; if it happens again, report it with the log.'),
  };
}

/** One line: the status (or kind) and the cause. */
export function errorSummary(e: unknown): string {
  if (e instanceof GatewayError) return `${e.status ? `HTTP ${e.status}: ` : ''}${e.reason}`;
  return e instanceof Error ? e.message : String(e);
}

/** The message plus what to change, e.g. for a paused video task or VS Code's language model API. */
export function errorWithFix(e: unknown): string {
  if (e instanceof GatewayError) return `${e.message} ${e.fix}`;
  return e instanceof Error ? e.message : String(e);
}

/**
 * For a call that may have been billed (it was not sent again): the billing note and that asking again
 * may be billed again, shown to the user beside the error (never to a model); else undefined.
 */
export function billedWarning(e: GatewayError): string | undefined {
  const note = e.billingNote();
  return note === undefined ? undefined : t('{0} Asking again may be billed again.', note);
}

/** The error as one sentence with its cause and fix (e.g. for VS Code's language model API). */
export function errorSentence(e: GatewayError): string {
  return `${e.message} ${e.reason} ${t('Fix: {0}', e.fix)}`;
}

/** The error as chat markdown: status, cause, fix and the masked token. */
export function errorMarkdown(e: unknown): string {
  if (e instanceof GatewayError)
    return `**${e.status ? `HTTP ${e.status}` : e.kind}** — ${e.reason}\n\n${t('**Fix:** {0}', e.fix)}${e.maskedToken ? `\n\n${t('Token: {0}', `\`${e.maskedToken}\``)}` : ''}`;
  return t('Failed: {0}', e instanceof Error ? e.message : String(e));
}
