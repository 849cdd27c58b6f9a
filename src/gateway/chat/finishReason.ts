/**
 * What a finish reason means, in one place: the core's errors and the chat's "cut off" note both
 * ask here (the webview is told by the host, never decides itself).
 */

/** The output budget (max tokens) ended the reply: compatible `length`, native `max_tokens`. */
export function stoppedAtMaxTokens(finishReason: string | undefined): boolean {
  return finishReason === 'length' || finishReason === 'max_tokens';
}
