/**
 * The upstream's count of a prompt's tokens, as the simulated channels report and bill it
 * (shared/reference/relay-receipts.md §7). Written apart from the client's own recount (src/host), whose
 * oracle it is: nothing here comes from src/.
 * - OpenAI models whose tokenizer is o200k_base, by name (gpt-4o*, chatgpt-4o*, gpt-4.1*, gpt-4.5*, gpt-5*,
 *   o1*, o3*, o4*; a vendor prefix before a slash is ignored): the OpenAI cookbook's
 *   `num_tokens_from_messages` (§7.1) — per message 3 + its role + its text (+ its name + 1), and 3 for the
 *   reply priming — in gpt-tokenizer's o200k_base, loaded on the first count. Text outside any message
 *   (a tool call's arguments, a tool's output on /v1/responses) is counted bare.
 * - Every other model (Claude's tokenizer is not public, §7.2; the others are not bundled): the words of each
 *   text (token-sized pieces for the demo replies, demo.ts), and 3.
 * Each surface hands its request over as new-api converts it for an OpenAI upstream (`…AsChat` below).
 * Images, tool calls on chat surfaces and tool results in Anthropic blocks are not counted.
 */
import type * as O200k from 'gpt-tokenizer/cjs/encoding/o200k_base';
import { demoTokens } from './demo';
import { itemsOf } from './responses';

/** One message as the upstream counts it: its role as sent, the text of its content, its name. */
export interface PromptMessage {
  role: string;
  text: string;
  name?: string | undefined;
}

/** A prompt: its messages in order, and texts that belong to no message. */
export interface Prompt {
  messages: PromptMessage[];
  texts: string[];
}

export type Tokenizer = 'o200k_base' | 'words' | 'demo pieces';

/** The cookbook's framing for the gpt-4o family (§7.1). */
export const TOKENS_PER_MESSAGE = 3;
export const TOKENS_PER_NAME = 1;
export const REPLY_PRIMING = 3;

const O200K_MODELS = /^(?:gpt-4o|chatgpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|o1|o3|o4)/i;

/** The upstream's tokenizer of `model`; `demo`: the simulator serves the demo replies. */
export const tokenizerOf = (model: string, demo: boolean): Tokenizer =>
  O200K_MODELS.test(model.slice(model.lastIndexOf('/') + 1)) ? 'o200k_base' : demo ? 'demo pieces' : 'words';

let o200k: ((text: string) => number) | undefined;
/** o200k_base's count; a special token's text (`<|endoftext|>`) is counted as text, as the API does. */
const o200kTokens = (text: string): number => {
  if (!o200k) {
    // The package exports its CommonJS build under the "require" condition only; loaded on first use.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { countTokens } = require('gpt-tokenizer/cjs/encoding/o200k_base') as typeof O200k;
    const literal = { disallowedSpecial: new Set<string>() };
    o200k = (s) => countTokens(s, literal);
  }
  return o200k(text);
};
const words = (s: string) => s.split(/\s+/).filter(Boolean).length;

export interface PromptCounter {
  readonly tokenizer: Tokenizer;
  /** the tokens of one message, its framing included */
  message(m: PromptMessage): number;
  /** the tokens of a whole prompt, the reply priming included */
  prompt(p: Prompt): number;
}

export function promptCounter(model: string, demo: boolean): PromptCounter {
  const tokenizer = tokenizerOf(model, demo);
  const text = tokenizer === 'o200k_base' ? o200kTokens : tokenizer === 'demo pieces' ? demoTokens : words;
  const message =
    tokenizer === 'o200k_base'
      ? (m: PromptMessage) =>
          TOKENS_PER_MESSAGE + text(m.role) + text(m.text) + (m.name === undefined ? 0 : text(m.name) + TOKENS_PER_NAME)
      : (m: PromptMessage) => text(m.text);
  return {
    tokenizer,
    message,
    prompt: (p) =>
      p.messages.reduce((n, m) => n + message(m), 0) + p.texts.reduce((n, s) => n + text(s), 0) + REPLY_PRIMING,
  };
}

// ---------------- each surface's request, as new-api hands it to an OpenAI upstream ----------------

type Json = Record<string, unknown>;
const isObj = (x: unknown): x is Json => !!x && typeof x === 'object' && !Array.isArray(x);

/** The text of a content: a string, or its text parts joined. */
export const textOfContent = (content: unknown): string =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content.map((b) => (isObj(b) && typeof b.text === 'string' ? b.text : '')).join('')
      : '';

/** A /v1/chat/completions message, with its role as sent. */
export const chatMessage = (m: unknown): PromptMessage => {
  const o = isObj(m) ? m : {};
  return {
    role: typeof o.role === 'string' ? o.role : '',
    text: textOfContent(o.content),
    ...(typeof o.name === 'string' ? { name: o.name } : {}),
  };
};

/** A system message of `text`, or none when it is empty (new-api sends no empty system message). */
const systemMessage = (text: string): PromptMessage[] => (text ? [{ role: 'system', text }] : []);

/** /v1/messages: `system` (a string or text blocks) as one system message first, then each message. */
export const nativeAsChat = (body: Json): Prompt => ({
  messages: [
    ...systemMessage(textOfContent(body.system)),
    ...(Array.isArray(body.messages) ? body.messages.map(chatMessage) : []),
  ],
  texts: [],
});

/**
 * /v1/responses: `instructions` as one system message first, then each input message with its role (a
 * string `input` is one user message); a function call's arguments and a tool's output as bare texts.
 */
export const responsesAsChat = (body: Json): Prompt => {
  const list = itemsOf(body);
  return {
    messages: [
      ...systemMessage(typeof body.instructions === 'string' ? body.instructions : ''),
      ...list.filter((i) => typeof i.role === 'string').map(chatMessage),
    ],
    texts: list
      .filter((i) => typeof i.role !== 'string')
      .flatMap((i) => [textOfContent(i.output), typeof i.arguments === 'string' ? i.arguments : '']),
  };
};

/** Gemini's generateContent: `systemInstruction` as one system message, each content (`model` as assistant). */
export const geminiAsChat = (body: Json): Prompt => ({
  messages: [
    ...systemMessage(isObj(body.systemInstruction) ? textOfContent(body.systemInstruction.parts) : ''),
    ...(Array.isArray(body.contents) ? body.contents.filter(isObj) : []).map((c) => ({
      role: c.role === 'model' ? 'assistant' : 'user',
      text: textOfContent(c.parts),
    })),
  ],
  texts: [],
});
