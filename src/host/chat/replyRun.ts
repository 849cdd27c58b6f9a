/**
 * One reply in flight: its assistant entry, the AbortController that stops it, when it started and
 * when its reasoning began. The session (./session.ts) makes one per request and drops it when the
 * reply ends; everything a streaming reply does to its entry (text, reasoning, retry notices, the
 * result, the failure) happens here. Plain Node, no `vscode`.
 */
import {
  GatewayError,
  adjustmentWords,
  answerEnding,
  surfaceMoveWords,
  type ChatEvent,
  type ChatResult,
  type FailoverEvent,
  type RetryNotice,
} from '../../gateway';
import type { ChatEntry, ChatUsage } from '../../shared/chatProtocol';
import { errorInfo, shortError, StreamFailed } from '../errorWords';
import type { SessionModels } from './modelTraits';
import { addNotice, failoverNotice, offersPlainRetry } from './notices';

/** What a reply reports to the session's listener (the subset of SessionEvent it emits). */
export type RunEvent =
  | { type: 'entryDelta'; id: string; text: string }
  | { type: 'entryReasoning'; id: string; text: string }
  | { type: 'entryUpdated'; entry: ChatEntry };

export class ReplyRun {
  private readonly abort = new AbortController();
  readonly startedAt: number;
  private reasoningFrom: number | undefined;
  private ended = false;

  constructor(
    readonly entry: ChatEntry,
    private readonly now: () => number,
    private readonly emit: (e: RunEvent) => void,
    /** whether an earlier reply of the conversation already said this notice */
    private readonly saidBefore: (text: string) => boolean = () => false,
  ) {
    this.startedAt = now();
  }

  get signal(): AbortSignal {
    return this.abort.signal;
  }

  stop(): void {
    this.abort.abort();
  }

  /** The core is about to retry: shown on the reply until text flows or it ends (a late notice is ignored). */
  noteRetry(n: RetryNotice): void {
    if (this.ended) return;
    this.entry.retry = {
      attempt: n.attempt,
      maxRetries: n.maxRetries,
      status: n.error.status,
      errorKind: n.error.kind,
    };
    this.emit({ type: 'entryUpdated', entry: this.entry });
  }

  /**
   * Streams the reply into the entry; resolves with the core's result (undefined when the stream ended
   * without one). A stream that fails outright throws StreamFailed: the same call without streaming is
   * offered, not made (it is billed again).
   */
  async stream(events: AsyncIterable<ChatEvent | FailoverEvent>): Promise<ChatResult | undefined> {
    let result: ChatResult | undefined;
    try {
      for await (const ev of events) {
        switch (ev.type) {
          case 'text':
            this.clearRetry();
            this.endReasoning();
            this.entry.text += ev.text;
            this.emit({ type: 'entryDelta', id: this.entry.id, text: ev.text });
            break;
          case 'reasoning':
            this.addReasoning(ev.text);
            break;
          case 'usage':
            this.entry.usage = { ...ev.usage };
            break;
          case 'finish':
            this.entry.finishReason = ev.reason;
            setEnding(this.entry);
            break;
          case 'done':
            this.endReasoning();
            result = ev.result;
            break;
          case 'failover':
            this.failedOver(ev);
            break;
          case 'tool_call':
          case 'thinking_block':
            break;
          default: {
            const _exhaustive: never = ev;
            void _exhaustive;
          }
        }
      }
    } catch (e) {
      if (this.signal.aborted || !(e instanceof GatewayError) || !offersPlainRetry(e)) throw e;
      const info = errorInfo(e);
      info.streamFailed = shortError(e);
      throw new StreamFailed(info);
    }
    return result;
  }

  /** A non-streamed reply: the failovers on its way are noted like a stream's, then its result. */
  async plain(reply: Promise<ChatResult & { failovers?: FailoverEvent[] | undefined }>): Promise<ChatResult> {
    const { failovers, ...result } = await reply;
    for (const f of failovers ?? []) this.failedOver(f);
    return result;
  }

  /** The request moved to the next gateway before a reply began: a line on the reply says so. */
  private failedOver(ev: FailoverEvent): void {
    this.clearRetry();
    addNotice(this.entry, { kind: 'failover', text: failoverNotice(ev) });
    this.entry.model = ev.to.model;
    this.emit({ type: 'entryUpdated', entry: this.entry });
  }

  /** The whole reply (streamed or not): its text, reasoning, usage with cost, finish reason, the gateway that answered. */
  finish(r: ChatResult, models: SessionModels | undefined): void {
    const e = this.entry;
    e.text = r.text;
    if (r.reasoning) e.reasoning = r.reasoning;
    if (r.gateway) e.gateway = { id: r.gateway.id, name: r.gateway.name };
    // The gateway answered on another surface (the model answers only there): the reply says which, and why once.
    if (r.surfaceMove) {
      e.surface = r.surfaceMove.to;
      if (r.surfaceMove.learntNow) addNotice(e, { kind: 'surface', text: surfaceMoveWords(r.surfaceMove) });
    }
    // What was not sent as asked (the model refuses it), once per conversation.
    for (const text of new Set((r.adjustments ?? []).map(adjustmentWords)))
      if (!this.saidBefore(text)) addNotice(e, { kind: 'adjusted', text });
    e.usage = withCost(r.usage ? { ...r.usage } : e.usage, e.model, e.gateway?.id, models);
    e.finishReason = r.finishReason ?? e.finishReason;
    setEnding(e);
    e.status = 'done';
    // the billed call, as its receipt is found in the gateway's log (the request record's fields)
    e.call = {
      time: new Date(this.startedAt).toISOString(),
      model: e.model,
      requestId: r.requestId,
      host: r.host,
      ...(r.gateway ? { gateway: r.gateway.name } : {}),
    };
  }

  /** The reply threw: stopped (the user aborted) or failed (the error card). */
  fail(e: unknown): void {
    const stopped = this.signal.aborted || (e instanceof GatewayError && e.kind === 'aborted');
    this.entry.status = stopped ? 'stopped' : 'error';
    if (!stopped) this.entry.error = errorInfo(e);
  }

  /** The reply ends: transient state dropped, durations set; the caller emits the final update. */
  end(): void {
    this.ended = true;
    delete this.entry.retry;
    this.endReasoning(false);
    this.entry.durationMs = this.now() - this.startedAt;
    if (this.entry.status === 'streaming') this.entry.status = 'done';
  }

  private clearRetry(): void {
    if (!this.entry.retry) return;
    delete this.entry.retry;
    this.emit({ type: 'entryUpdated', entry: this.entry });
  }

  /** Streamed reasoning: appended to the entry; the clock runs from its first piece to the answer. */
  private addReasoning(text: string): void {
    if (!text) return;
    this.clearRetry();
    this.entry.reasoning = (this.entry.reasoning ?? '') + text;
    this.reasoningFrom ??= this.now();
    this.emit({ type: 'entryReasoning', id: this.entry.id, text });
  }

  /** The answer begins (or the reply ends): how long the model reasoned, shown as "Thought for N s". */
  private endReasoning(emit = true): void {
    if (this.reasoningFrom === undefined || this.entry.reasoningMs !== undefined) return;
    this.entry.reasoningMs = this.now() - this.reasoningFrom;
    if (emit) this.emit({ type: 'entryUpdated', entry: this.entry });
  }
}

/** How the reply ended, from its finish reason by the core's rule (nothing when it simply ended). */
export function setEnding(e: ChatEntry): void {
  const ending = answerEnding(e.finishReason);
  if (ending === 'complete') delete e.ending;
  else e.ending = ending;
}

/** The usage with its cost added, where the price of the model at the gateway that answered is known. */
function withCost(
  u: ChatUsage | undefined,
  model: string | undefined,
  gateway: string | undefined,
  models: SessionModels | undefined,
): ChatUsage | undefined {
  const cost = u && model ? models?.costOf?.(model, u, gateway) : undefined;
  return cost ? { ...u, cost } : u;
}
