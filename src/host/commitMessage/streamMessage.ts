/**
 * One generated commit message streamed into the Source Control input box (any `MessageSink`), and
 * what happens to the box's text around it. Decided here, once:
 * - the box's own text (the author's draft) goes to the model as a note and is replaced by the message;
 * - Cancel, a failure or an empty reply puts back exactly what the box held before (a half-written
 *   message is no use, and the draft must not be lost);
 * - the user typing into the box while it streams wins: the request is aborted at once (its socket
 *   closed) and the box keeps what the user typed.
 * The request is the core's chat stream (GatewayClient.chatStream), one billed call, never repeated
 * here. Plain Node, no `vscode`.
 */
import type { ChatEvent, ChatRequest, ChatResult } from '../../gateway';
import { cleanMessage } from './commitPrompt';

/** The input box as this module sees it. */
export interface MessageSink {
  get(): string;
  set(text: string): void;
}

export type StreamOutcome =
  /** the message is in the box */
  | { kind: 'done'; text: string; result: ChatResult }
  /** cancelled: the box holds what it held before */
  | { kind: 'cancelled' }
  /** the user typed into the box: the request was aborted, the box keeps the user's text */
  | { kind: 'user-edited' }
  /** the model answered nothing usable: the box holds what it held before */
  | { kind: 'empty'; result: ChatResult };

export interface StreamClient {
  chatStream(req: ChatRequest): AsyncIterable<ChatEvent>;
}

/**
 * Streams the reply to `request` into `sink`. `request.signal` is replaced by one that also aborts
 * when the user edits the box; `signal` is the caller's Cancel. A gateway error is thrown after the
 * box is put back.
 */
export async function streamMessage(
  client: StreamClient,
  request: ChatRequest,
  sink: MessageSink,
  signal: AbortSignal,
): Promise<StreamOutcome> {
  const before = sink.get();
  let written = before;
  let raw = '';
  const ac = new AbortController();
  const onCancel = () => ac.abort(signal.reason);
  if (signal.aborted) return { kind: 'cancelled' };
  signal.addEventListener('abort', onCancel, { once: true });
  const putBack = () => {
    if (sink.get() === written && written !== before) sink.set(before);
  };
  try {
    for await (const e of client.chatStream({ ...request, signal: ac.signal })) {
      if (sink.get() !== written) {
        ac.abort();
        return { kind: 'user-edited' };
      }
      if (e.type === 'text') {
        raw += e.text;
        const shown = cleanMessage(raw, false);
        if (shown && shown !== written) {
          sink.set(shown);
          written = shown;
        }
      } else if (e.type === 'done') {
        const text = cleanMessage(e.result.text || raw, true);
        if (!text) {
          putBack();
          return { kind: 'empty', result: e.result };
        }
        if (text !== written) sink.set(text);
        return { kind: 'done', text, result: e.result };
      }
    }
    // The stream ended without its `done` (the core always ends with one unless aborted).
    putBack();
    return { kind: 'cancelled' };
  } catch (e) {
    if (sink.get() !== written) return { kind: 'user-edited' };
    putBack();
    if (signal.aborted) return { kind: 'cancelled' };
    throw e;
  } finally {
    signal.removeEventListener('abort', onCancel);
  }
}
