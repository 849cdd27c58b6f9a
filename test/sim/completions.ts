/**
 * `POST /v1/completions` as new-api relays it (shared/reference/vscode-chat-settings.md §5): the legacy
 * completions request with `prompt` + `suffix` (fill-in-the-middle), `max_tokens`, `temperature`,
 * `stop` and `stream`. What an upstream answers per model family:
 * - a FIM-capable model (`fim: 'suffix'`: DeepSeek V3 on its channel's /beta/completions, SiliconFlow's
 *   Qwen2.5-Coder) fills the middle;
 * - a vLLM-served coder (`fim: 'prompt'`) completes a prompt but refuses `suffix` with vLLM's 400
 *   `suffix is not currently supported`;
 * - a chat model (GPT-4o, Claude, Codestral through new-api) is refused with OpenAI's 404 "This is a
 *   chat model and not supported in the v1/completions endpoint".
 * The middle is deterministic and plausible (it finishes the cursor's line of code), cut at `stop` and
 * `max_tokens`. The latency before the first byte is `config.completions.latencyMs`; a request whose
 * client went away before the answer is recorded `aborted` (never billed) and counted.
 */

/** The simulator's knobs for /v1/completions (`PUT /__sim/config` `{ completions: { latencyMs } }`). */
export interface CompletionsConfig {
  /** the model's time before the first byte (default 5 ms) */
  latencyMs: number;
  /** a fixed middle instead of the made-up one (tests of the client's cleanup) */
  text?: string | undefined;
}

export const defaultCompletions = (): CompletionsConfig => ({ latencyMs: 5 });

/** Counts of /v1/completions requests since the last reset (`sim.completionStats()`, `GET /__sim/completions`). */
export interface CompletionStats {
  /** requests that reached the route (authenticated) */
  requests: number;
  /** answered 200 (billed) */
  answered: number;
  /** refused with a 4xx (model, prompt, suffix): not billed */
  refused: number;
  /** the client closed the connection before the whole answer (never billed when before the first byte) */
  aborted: number;
  /** answered with a suffix (fill-in-the-middle) */
  fim: number;
}

export const emptyStats = (): CompletionStats => ({ requests: 0, answered: 0, refused: 0, aborted: 0, fim: 0 });

/** How a model serves /v1/completions: FIM with `suffix`, a prompt only (vLLM refuses `suffix`), or not at all. */
export type FimSupport = 'suffix' | 'prompt';

/** OpenAI's words for a chat model on the legacy endpoint (HTTP 404, relayed by new-api as they are). */
export const CHAT_MODEL_REFUSAL =
  'This is a chat model and not supported in the v1/completions endpoint. Did you mean to use v1/chat/completions?';
/** vLLM's words for `suffix` (serving_completion.py), HTTP 400. */
export const SUFFIX_REFUSAL = 'suffix is not currently supported';
/** new-api's validation of an empty prompt (relay/helper/valid_request.go), HTTP 400. */
export const PROMPT_REQUIRED = 'field prompt is required';

export interface CompletionPlan {
  prompt: string;
  suffix: string;
  maxTokens: number;
  stop: string[];
  stream: boolean;
  includeUsage: boolean | undefined;
}

/** Reads a completions body; a string is the error message (HTTP 400). */
export function planCompletion(body: Record<string, unknown>): CompletionPlan | string {
  const prompt = Array.isArray(body.prompt) ? body.prompt.join('') : body.prompt;
  if (typeof prompt !== 'string' || prompt === '') return PROMPT_REQUIRED;
  if (body.suffix !== undefined && body.suffix !== null && typeof body.suffix !== 'string')
    return 'suffix must be a string';
  const maxTokens = body.max_tokens ?? 16;
  if (typeof maxTokens !== 'number' || !Number.isInteger(maxTokens) || maxTokens < 1)
    return 'max_tokens must be a positive integer';
  const rawStop = body.stop;
  const stop = typeof rawStop === 'string' ? [rawStop] : Array.isArray(rawStop) ? rawStop.map(String) : [];
  if (stop.length > 4) return 'stop: at most 4 sequences';
  const so = body.stream_options as { include_usage?: unknown } | undefined;
  return {
    prompt,
    suffix: typeof body.suffix === 'string' ? body.suffix : '',
    maxTokens,
    stop: stop.filter((s) => s !== ''),
    stream: body.stream === true,
    includeUsage: typeof so?.include_usage === 'boolean' ? so.include_usage : undefined,
  };
}

const KEYWORDS = [
  'return',
  'const',
  'console',
  'function',
  'import',
  'export',
  'print',
  'self',
  'def',
  'let',
  'await',
  'async',
  'class',
  'this',
  'value',
  'result',
];
const NOT_NAMES = new Set([...KEYWORDS, 'if', 'else', 'for', 'while', 'in', 'of', 'new', 'true', 'false', 'null']);

/** The last name the code before the cursor introduced (a parameter, a variable), else `value`. */
function lastName(prompt: string, partial: string | undefined): string {
  const names = prompt.match(/[A-Za-z_]\w*/g) ?? [];
  for (let i = names.length - 1; i >= 0; i--) if (!NOT_NAMES.has(names[i]) && names[i] !== partial) return names[i];
  return 'value';
}

/** How many more `(` than `)` the line has. */
const openParens = (line: string) => (line.match(/\(/g)?.length ?? 0) - (line.match(/\)/g)?.length ?? 0);

/**
 * A deterministic, plausible middle: it finishes the word under the cursor, then the line (a return
 * of the last name on an empty line, an argument after `(`, a value after `=`), closes the line's
 * open parentheses the suffix does not close, and then starts another block after an empty line
 * (which `stop: ["\n\n"]` cuts off).
 */
export function middleOf(prompt: string, suffix: string): string {
  const line = prompt.slice(prompt.lastIndexOf('\n') + 1);
  const indent = /^\s*/.exec(line)?.[0] ?? '';
  const partial = /[A-Za-z_]\w*$/.exec(line)?.[0];
  const name = lastName(prompt, partial);
  let text = '';
  if (partial) {
    const kw = KEYWORDS.find((k) => k.startsWith(partial) && k !== partial);
    text = kw ? kw.slice(partial.length) : '';
    if (kw === 'return') text += ` ${name}`;
  } else if (line.trim() === '') text = `return ${name}`;
  else if (/\($/.test(line)) text = name;
  else if (/=\s*$/.test(line)) text = `${/\s$/.test(line) ? '' : ' '}${name} + 1`;
  else if (/[,:]\s*$/.test(line)) text = `${/\s$/.test(line) ? '' : ' '}${name}`;
  else text = `${/\s$/.test(line) ? '' : ' '}// ${name}`;
  const nextLine = suffix.split('\n')[0];
  const closing = Math.max(0, openParens(line + text) - (nextLine.match(/^\s*\)+/)?.[0].trim().length ?? 0));
  text += ')'.repeat(closing);
  return `${text}\n\n${indent}// next: ${name}`;
}

/** A middle cut at the first stop sequence and at max_tokens (word-sized pieces), with its finish reason. */
export function cutMiddle(
  full: string,
  stop: readonly string[],
  maxTokens: number,
): { text: string; pieces: string[]; finishReason: 'stop' | 'length' } {
  let text = full;
  for (const s of stop) {
    const at = text.indexOf(s);
    if (at >= 0) text = text.slice(0, at);
  }
  const pieces = text.match(/\s*\S+|\s+/g) ?? [];
  if (pieces.length > maxTokens)
    return { text: pieces.slice(0, maxTokens).join(''), pieces: pieces.slice(0, maxTokens), finishReason: 'length' };
  return { text, pieces, finishReason: 'stop' };
}

/** Prompt tokens as a tokenizer would roughly count code: four characters a token. */
export const promptTokens = (prompt: string, suffix: string) =>
  Math.max(1, Math.ceil((prompt.length + suffix.length) / 4));

export interface CompletionAnswer {
  id: string;
  created: number;
  model: string;
  text: string;
  pieces: string[];
  finishReason: 'stop' | 'length';
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

export function answerOf(plan: CompletionPlan, model: string, id: string, fixed: string | undefined): CompletionAnswer {
  const cut = cutMiddle(fixed ?? middleOf(plan.prompt, plan.suffix), plan.stop, plan.maxTokens);
  const prompt = promptTokens(plan.prompt, plan.suffix);
  const completion = cut.pieces.length;
  return {
    id,
    created: Math.floor(Date.now() / 1000),
    model,
    ...cut,
    usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
  };
}

/** The non-streamed answer: OpenAI's `text_completion` object. */
export function completionObject(a: CompletionAnswer): Record<string, unknown> {
  return {
    id: a.id,
    object: 'text_completion',
    created: a.created,
    model: a.model,
    choices: [{ text: a.text, index: 0, logprobs: null, finish_reason: a.finishReason }],
    usage: a.usage,
  };
}

/** The streamed answer: `text_completion` chunks (one per piece), the finish, the usage when asked, `[DONE]`. */
export function completionFrames(a: CompletionAnswer, includeUsage: boolean): string[] {
  const chunk = (text: string, finish: string | null, extra: Record<string, unknown> = {}) =>
    `data: ${JSON.stringify({
      id: a.id,
      object: 'text_completion',
      created: a.created,
      model: a.model,
      choices: [{ text, index: 0, logprobs: null, finish_reason: finish }],
      ...extra,
    })}\n\n`;
  const frames = a.pieces.map((p) => chunk(p, null));
  frames.push(chunk('', a.finishReason));
  if (includeUsage)
    frames.push(
      `data: ${JSON.stringify({ id: a.id, object: 'text_completion', created: a.created, model: a.model, choices: [], usage: a.usage })}\n\n`,
    );
  frames.push('data: [DONE]\n\n');
  return frames;
}
