/**
 * The core's CompletionClient (issue 25): one suggestion per call, asked the model's way —
 * fill-in-the-middle on `/v1/completions` for FIM families (fimFamily.ts, `overrides[id].fim` wins),
 * else a short chat request on the model's surface (chatMode.ts). A FIM refusal (a chat model's 404,
 * vLLM's `suffix` 400) was not billed: the same insertion is asked the chat way at once, and the
 * client remembers it for the model (`FimRefusals`, bounded, forgotten when the model list or the
 * token changes), so the next suggestions go the chat way directly. A 5xx, a timeout or a broken
 * answer is never re-sent (it may have been billed). Aborting closes the socket at once.
 */
import type { ChatRequest, ChatResult } from '../chat/types';
import { inputError } from '../errors/factories';
import type { Surface } from '../errors/gatewayError';
import type { Transport } from '../http/transport';
import { t } from '../l10n';
import type { Capability, ModelInfo } from '../models';
import { estimateTokens } from '../tokenEstimate';
import {
  CHAT_COMPLETION_SYSTEM,
  chatCompletionPrompt,
  chatCompletionRequest,
  cleanChatAnswer,
  withoutSuffixOverlap,
} from './chatMode';
import { fimCall, fimRefused } from './fim';
import { completionModeOf } from './fimFamily';
import type { CompletionClient, CompletionMode, CompletionRequest, CompletionResult } from './types';

/** Output tokens asked when the request says none. */
export const DEFAULT_COMPLETION_MAX_TOKENS = 128;
/** A suggestion later than this is of no use (the chat timeout applies when it is shorter). */
export const COMPLETION_TIMEOUT_MS = 20_000;
/** Models whose FIM refusal one client remembers (the oldest forgotten first). */
export const MAX_FIM_REFUSALS = 256;

/** The models a gateway refused FIM for, until its model list or the token changes. */
export class FimRefusals {
  private readonly refused = new Set<string>();
  private listPrint: string | undefined;

  constructor(private readonly max = MAX_FIM_REFUSALS) {}

  has(model: string): boolean {
    return this.refused.has(model);
  }

  learn(model: string): void {
    this.refused.delete(model);
    this.refused.add(model);
    while (this.refused.size > this.max) this.refused.delete(this.refused.values().next().value!);
  }

  /** Every model refused, oldest first. */
  models(): string[] {
    return [...this.refused];
  }

  /** A model list was read: a list other than the last one (another routing) forgets the refusals. */
  listed(models: readonly ModelInfo[]): void {
    const print = models
      .map((m) => `${m.id}\u0000${(m.endpointTypes ?? []).join(',')}`)
      .sort()
      .join('\n');
    if (this.listPrint !== undefined && print !== this.listPrint) this.refused.clear();
    this.listPrint = print;
  }

  forget(): void {
    this.refused.clear();
    this.listPrint = undefined;
  }
}

/** What `modelRelay.models.overrides[id]` says about completions: `fim` (ask FIM or not), `surface` (chat mode). */
export interface CompletionOverride {
  fim?: boolean | undefined;
  surface?: Surface | undefined;
}

/** What the completions need from their GatewayClient. */
export interface CompletionContext {
  transport: Transport;
  /** a chat on the model's surface, moved to the learnt one when refused (GatewayClient.chat) */
  chat(req: ChatRequest): Promise<ChatResult>;
  refusals: FimRefusals;
  /** capabilities from the last model list (undefined: unknown) */
  capabilitiesOf(model: string): Capability[] | undefined;
  /** the chat timeout (the completion's is the shorter of it and COMPLETION_TIMEOUT_MS) */
  timeoutMs(): number;
  now(): number;
  /** resolves once the token in use is known (its scope checked: another token forgets what was learnt) */
  current(): Promise<unknown>;
  overrides?: (() => Readonly<Record<string, CompletionOverride>>) | undefined;
}

/** The surface a model chats on when nothing else says: the one its listed capabilities allow. */
function listedSurface(caps: readonly Capability[] | undefined): Surface {
  if (!caps || caps.length === 0 || caps.includes('chat')) return 'compatible';
  if (caps.includes('native')) return 'native';
  if (caps.includes('responses')) return 'responses';
  return 'compatible';
}

function validate(req: CompletionRequest): number {
  const context = { surface: 'compatible' as const, model: req.model };
  if (!req.model?.trim())
    throw inputError(
      t('No completion model is set.'),
      t('Set {0} or pick a completion model.', 'modelRelay.completions.model'),
      context,
    );
  const maxTokens = req.maxTokens ?? DEFAULT_COMPLETION_MAX_TOKENS;
  if (!Number.isInteger(maxTokens) || maxTokens < 1)
    throw inputError(
      t('max tokens {0} is not a positive integer.', String(maxTokens)),
      t('Use a positive whole number for max tokens.'),
      context,
    );
  return maxTokens;
}

/** The core's completion client for one gateway (one GatewayClient). */
export class GatewayCompletions implements CompletionClient {
  constructor(private readonly c: CompletionContext) {}

  /** How a completion for `model` is asked now: forced, learnt from a refusal, the override, or the family. */
  modeOf(model: string): CompletionMode {
    if (this.c.refusals.has(model)) return 'chat';
    return completionModeOf(model, this.c.overrides?.()[model]?.fim);
  }

  /**
   * A completion is coming: a connection to the preferred gateway is opened now, unless one is free
   * (no request, no token sent; none through a proxy's tunnel). See http/spareConnection.ts.
   */
  warm(): void {
    this.c.transport.preconnect();
  }

  async complete(req: CompletionRequest): Promise<CompletionResult> {
    const maxTokens = validate(req);
    // Before `sendAfter` (the debounce) resolves: the token's scope, the mode and the FIM body; the
    // exchange's time is counted from the release.
    let started = this.c.now();
    const released = req.sendAfter?.then(() => {
      started = this.c.now();
    });
    released?.catch(() => {}); // awaited below; a failure before that must not leave it unhandled
    await this.c.current();
    const timeoutMs = Math.min(this.c.timeoutMs(), COMPLETION_TIMEOUT_MS);
    // new-api refuses an empty prompt: at the very start of a file the chat way is asked (nothing learnt).
    const mode = req.mode ?? (req.prefix === '' ? 'chat' : this.modeOf(req.model));
    if (mode === 'fim') {
      try {
        const a = await fimCall(this.c.transport, { ...req, sendAfter: released }, maxTokens, timeoutMs);
        const text = withoutSuffixOverlap(a.text, req.suffix);
        return {
          text,
          finishReason: a.finishReason,
          mode: 'fim',
          model: req.model,
          usage: a.usage ?? estimated(req.prefix + req.suffix, text),
          ...(a.requestId ? { requestId: a.requestId } : {}),
          durationMs: this.c.now() - started,
        };
      } catch (e) {
        // A forced mode is a question (a probe): its answer is the refusal itself.
        if (req.mode || !fimRefused(e)) throw e;
        this.c.refusals.learn(req.model);
      }
    }
    await released;
    return this.chatWay(req, maxTokens, started);
  }

  /** The chat way, once released (the chat's own request is built at send time). */
  private async chatWay(req: CompletionRequest, maxTokens: number, started: number): Promise<CompletionResult> {
    const surface = this.c.overrides?.()[req.model]?.surface ?? listedSurface(this.c.capabilitiesOf(req.model));
    const r = await this.c.chat(chatCompletionRequest(req, surface, maxTokens));
    const text = cleanChatAnswer(r.text, req.prefix, req.suffix);
    const reported =
      r.usage && (r.usage.inputTokens !== undefined || r.usage.outputTokens !== undefined)
        ? { input: r.usage.inputTokens ?? 0, output: r.usage.outputTokens ?? 0 }
        : undefined;
    return {
      text,
      finishReason: r.finishReason,
      mode: 'chat',
      model: req.model,
      usage: reported ?? estimated(`${CHAT_COMPLETION_SYSTEM}\n${chatCompletionPrompt(req)}`, r.text),
      ...(r.requestId ? { requestId: r.requestId } : {}),
      durationMs: this.c.now() - started,
    };
  }
}

/** Usage estimated from the texts sent and received (the gateway reported none). */
function estimated(sent: string, received: string): CompletionResult['usage'] {
  return { input: estimateTokens(sent), output: received ? estimateTokens(received) : 0, estimated: true };
}
