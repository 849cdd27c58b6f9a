/**
 * The upstream's prompt cache, as the simulated channels report it in `usage` — what new-api then records as
 * `cache_tokens` / `cache_creation_tokens` and bills at the cache ratios (shared/reference/relay-receipts.md
 * §1.3, §2.2; the usage semantics of §2.6 R4):
 * - OpenAI, automatic: a prompt whose leading messages were sent before, holding at least 1024 tokens, reads
 *   them from the cache in steps of 128 tokens ("Prompt caching", OpenAI platform guide):
 *   `usage.prompt_tokens_details.cached_tokens`, included in `prompt_tokens`;
 * - Anthropic, explicit: the prefix up to the last message (or system) carrying a `cache_control` block is
 *   written the first time and read afterwards, when it holds at least 1024 tokens ("Prompt caching",
 *   Anthropic docs): `cache_creation_input_tokens` / `cache_read_input_tokens`, excluded from `input_tokens`.
 * Prefixes are kept per token and model (bounded); the simulator's reset() forgets them.
 */
import { createHash } from 'node:crypto';

export const CACHE_MIN_TOKENS = 1024;
export const OPENAI_CACHE_STEP = 128;
/** prefixes kept (the oldest are forgotten first) */
const KEEP = 4000;

const chain = (previous: string, part: unknown) =>
  createHash('sha256')
    .update(previous)
    .update(JSON.stringify(part) ?? '')
    .digest('hex');

export class PromptCache {
  private readonly seen = new Set<string>();

  private remember(key: string): void {
    this.seen.add(key);
    if (this.seen.size > KEEP) this.seen.delete(this.seen.values().next().value!);
  }

  clear(): void {
    this.seen.clear();
  }

  /**
   * OpenAI's automatic cache: the tokens read from it for `messages` (`tokensOf` counts one message as the
   * prompt does); every prefix of this prompt is cached for the next ones.
   */
  openai(scope: string, messages: readonly unknown[], tokensOf: (m: unknown) => number): number {
    let key = scope;
    let tokens = 0;
    let longest = 0;
    messages.forEach((m, i) => {
      key = chain(key, m);
      tokens += tokensOf(m);
      if (i < messages.length - 1 && this.seen.has(key) && tokens >= CACHE_MIN_TOKENS) longest = tokens;
      this.remember(key);
    });
    if (!longest) return 0;
    return CACHE_MIN_TOKENS + Math.floor((longest - CACHE_MIN_TOKENS) / OPENAI_CACHE_STEP) * OPENAI_CACHE_STEP;
  }

  /**
   * Anthropic's explicit cache: the prefix through the last `cache_control` block, written (`write`) the
   * first time and read (`read`) afterwards; nothing under 1024 tokens or without a breakpoint.
   * `systemTokens`: the prompt's tokens of `system`; `tokensOf` counts one message as the prompt does.
   */
  anthropic(
    scope: string,
    system: unknown,
    messages: readonly unknown[],
    systemTokens: number,
    tokensOf: (m: unknown) => number,
  ): { read: number; write: number } {
    const marked = (content: unknown) =>
      Array.isArray(content) && content.some((b) => !!b && typeof b === 'object' && 'cache_control' in b);
    let last = -1;
    messages.forEach((m, i) => {
      if (m && typeof m === 'object' && marked((m as { content?: unknown }).content)) last = i;
    });
    if (last < 0 && !marked(system)) return { read: 0, write: 0 };
    const prefix = messages.slice(0, last + 1);
    const tokens = systemTokens + prefix.reduce<number>((n, m) => n + tokensOf(m), 0);
    if (tokens < CACHE_MIN_TOKENS) return { read: 0, write: 0 };
    const key = chain(chain(`${scope}:anthropic`, system ?? null), prefix);
    if (this.seen.has(key)) return { read: tokens, write: 0 };
    this.remember(key);
    return { read: 0, write: tokens };
  }
}
