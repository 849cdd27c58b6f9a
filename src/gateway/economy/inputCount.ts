/**
 * A local count of what a chat call sent, for the receipt's input check (shared/reference/relay-receipts.md
 * §7): made only where it can be compared honestly. The model must be one whose tokenizer this client has
 * (o200k_base: OpenAI's current models, §7.1; Anthropic's tokenizer is not public, §7.2, and others are not
 * bundled), and the input plain text: tool definitions, images, files, tool calls and replayed reasoning are
 * framed in undocumented ways (§7.5) and make a call not counted. The framing is the OpenAI cookbook's:
 * 3 tokens per message and 3 priming the reply (the role's own tokens counted with its text).
 * The tokenizer is the caller's (`CountText`: the extension loads it off the request's path); a count it
 * cannot make (not loaded, a text too long to wait for) is no count, never an estimate.
 */
import * as path from 'node:path';
import type { ChatRequest } from '../chat/types';
import type { LocalCount } from '../requestLog';

/** An exact count of a text's tokens with the bundled tokenizer, or undefined when none can be made. */
export type CountText = (text: string) => Promise<number | undefined>;

/**
 * The o200k tokenizer bundled next to the bundles (dist/tokenizer.js, 2.4 MB), loaded by its first caller:
 * a runtime path, so the bundler does not pull it into the bundle that counts.
 */
export function loadBundledTokenizer(): (text: string) => number {
  const file = path.join(__dirname, 'tokenizer.js');
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a runtime path, loaded on first count
  return (require(/* webpackIgnore: true */ file) as { countTokens: (text: string) => number }).countTokens;
}

/** Counts with the bundled tokenizer, loaded on the first count (a command line's few calls); none when it cannot load. */
export function bundledCountText(): CountText {
  let count: ((text: string) => number) | undefined;
  let failed = false;
  return (text) => {
    if (failed) return Promise.resolve(undefined);
    try {
      count ??= loadBundledTokenizer();
      return Promise.resolve(count(text));
    } catch {
      failed = true;
      return Promise.resolve(undefined);
    }
  };
}

export const O200K = 'o200k_base';
/** §7.1: the cookbook's `num_tokens_from_messages` */
export const CHAT_FRAMING = { perMessage: 3, priming: 3 } as const;
/** How the framing is written among a check's inputs. */
export const FRAMING_TEXT = '3/message + 3';

/** gpt-4o, chatgpt-4o, gpt-4.1, gpt-4.5, gpt-5 and the o-series (o1, o3, o4) and their variants. */
const O200K_MODELS = /^(?:gpt-4o|chatgpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|o[134])(?:[-.:]|$)/i;

/** The tokenizer this client counts a model's input with, when it has it (a vendor prefix `openai/` is ignored). */
export function tokenizerOf(model: string): string | undefined {
  const name = model.slice(model.lastIndexOf('/') + 1);
  return O200K_MODELS.test(name) ? O200K : undefined;
}

/** The messages as the upstream frames them (the system prompt first), when every one is plain text. */
export function plainMessages(req: Pick<ChatRequest, 'system' | 'messages' | 'tools'>):
  | Array<{
      role: string;
      text: string;
    }>
  | undefined {
  if (req.tools?.length) return undefined;
  const out = req.system ? [{ role: 'system', text: req.system }] : [];
  for (const m of req.messages) {
    if (typeof m.content === 'string') {
      out.push({ role: m.role, text: m.content });
      continue;
    }
    let text = '';
    for (const p of m.content) {
      if (p.type !== 'text') return undefined;
      text += p.text;
    }
    out.push({ role: m.role, text });
  }
  return out;
}

/** The local count of a chat request's input, or undefined where none can be compared (see above). */
export async function localInputCount(req: ChatRequest, count: CountText): Promise<LocalCount | undefined> {
  const tokenizer = tokenizerOf(req.model);
  const messages = tokenizer ? plainMessages(req) : undefined;
  if (!tokenizer || !messages) return undefined;
  let tokens: number = CHAT_FRAMING.priming;
  for (const m of messages) {
    const [role, text] = await Promise.all([count(m.role), count(m.text)]);
    if (role === undefined || text === undefined) return undefined;
    tokens += CHAT_FRAMING.perMessage + role + text;
  }
  return { tokens, tokenizer };
}
