/**
 * A fake CompletionClient for the inline-completion engine's rules (issue 25), on a FakeClock: a
 * request is recorded once its `sendAfter` (the debounce) resolved, as the core sends it then; each
 * request takes `latencyMs` of fake time, answers `reply(req)` (or throws `failWith`), and an abort
 * through the request's signal ends it at once with the core's `aborted` error. It records every
 * request, the aborted ones and the most in flight at once. The wire itself is tested against the
 * simulator with the real client (test/host/completionEngineSim.test.ts).
 */
import { GatewayError } from '../../src/gateway';
import type { CompletionClient, CompletionRequest, CompletionResult } from '../../src/gateway/completions/types';
import type { FakeClock } from './clock';

export class FakeCompletionClient implements CompletionClient {
  /** every call, prepared before its release; `requests` holds the ones released (sent) */
  readonly prepared: CompletionRequest[] = [];
  readonly requests: CompletionRequest[] = [];
  aborted = 0;
  answered = 0;
  inFlight = 0;
  maxInFlight = 0;
  latencyMs = 150;
  reply: (req: CompletionRequest) => string = () => 'completion()';
  /** how each answer ended, in the gateway's words (undefined: it does not say) */
  finishReason: ((req: CompletionRequest) => string | undefined) | undefined;
  usage: ((req: CompletionRequest) => CompletionResult['usage']) | undefined = () => ({ input: 100, output: 10 });
  failWith: (() => unknown) | undefined;
  /** thrown while preparing, before the release (as the core's input errors, or a failing token store, are) */
  failBeforeSend: (() => unknown) | undefined;
  /** warm() calls, each with how many requests had been made before it */
  readonly warms: number[] = [];

  constructor(private readonly clock: FakeClock) {}

  warm(): void {
    this.warms.push(this.requests.length);
  }

  async complete(req: CompletionRequest): Promise<CompletionResult> {
    // as the core does: prepared now, on the wire (recorded) once released; a failed release sends nothing
    this.prepared.push(req);
    if (this.failBeforeSend) throw this.failBeforeSend();
    if (req.sendAfter) await req.sendAfter;
    this.requests.push(req);
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      await this.clock.sleep(this.latencyMs, req.signal);
    } catch (e) {
      this.aborted++;
      throw new GatewayError({
        kind: 'aborted',
        message: 'aborted',
        reason: 'The request was cancelled.',
        fix: 'Nothing to do.',
        cause: e,
      });
    } finally {
      this.inFlight--;
    }
    if (this.failWith) throw this.failWith();
    this.answered++;
    return {
      text: this.reply(req),
      finishReason: this.finishReason?.(req),
      mode: 'fim',
      model: req.model,
      usage: this.usage?.(req),
      durationMs: this.latencyMs,
    };
  }
}
