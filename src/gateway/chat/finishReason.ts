/**
 * How an answer ended, in one place: every client says it from here (the chat panel's footer, the
 * notice in VS Code's chat, relay-doctor's stderr line and exit code, whether an inline suggestion is
 * shown) and the core's empty-reply error asks here too. The surfaces report the gateway's own words
 * (ChatResult.finishReason, the `finish` event): compatible `finish_reason`, native `stop_reason`, and
 * the Responses surface's `incomplete_details.reason` in the compatible words (`length` for
 * `max_output_tokens`, else the reason itself: surfaces/responses.ts). Never decided by the webview.
 */
import { t } from '../l10n';

/**
 * complete: the model finished (or called its tools); budget: the output budget (max tokens) cut it;
 * filter: a content filter stopped it (or the model refused); other: any other reason the gateway gave.
 */
export type AnswerEnding = 'complete' | 'budget' | 'filter' | 'other';

/** Compatible, native and Responses endings that are a finished answer (lower-cased). */
const COMPLETE = new Set(['stop', 'end_turn', 'stop_sequence', 'tool_calls', 'tool_use', 'function_call']);
/** Compatible `length`, native `max_tokens` (Gemini's MAX_TOKENS too), Responses `max_output_tokens` as a gateway may pass it. */
const BUDGET = new Set(['length', 'max_tokens', 'max_output_tokens']);
/** Compatible `content_filter`, native `refusal`, Gemini's safety endings where a gateway passes them through. */
const FILTER = new Set([
  'content_filter',
  'refusal',
  'safety',
  'recitation',
  'blocklist',
  'prohibited_content',
  'spii',
  'image_safety',
]);

/** How an answer with this finish reason ended; none given (many gateways omit it) is a complete answer. */
export function answerEnding(finishReason: string | undefined): AnswerEnding {
  const r = finishReason?.trim().toLowerCase();
  if (!r || COMPLETE.has(r)) return 'complete';
  if (BUDGET.has(r)) return 'budget';
  if (FILTER.has(r)) return 'filter';
  return 'other';
}

/**
 * The sentence that says how an answer ended, when it did not simply end: `maxTokens` is the budget
 * the request asked for (said when known). undefined for a complete answer.
 */
export function endingWords(finishReason: string | undefined, maxTokens?: number): string | undefined {
  switch (answerEnding(finishReason)) {
    case 'complete':
      return undefined;
    case 'budget':
      return maxTokens !== undefined
        ? t('the answer was cut by the output budget (max tokens {0}).', maxTokens)
        : t('the answer was cut by the output budget (max tokens).');
    case 'filter':
      return t("the answer was stopped by the gateway's content filter.");
    case 'other':
      return t('the answer did not end normally (finish reason "{0}").', finishReason ?? '');
  }
}
