/**
 * Tools, images and reasoning on the simulator's two chat surfaces, spoken as a strict upstream does
 * (wire shapes: shared/reference/vscode-lm-api.md §4 and §7):
 * - the reply plan: one tool call, an answer about tool results, an image summary, reasoning first;
 * - its wire form: compatible deltas / message, native content blocks / block events.
 * What the upstreams refuse (broken tool round-trips, images, thinking) is judged before, by the rule
 * table (constraints/). Pure functions over the request body: no server state, so both surfaces and
 * profiles share them.
 */
import { createHash } from 'node:crypto';

type Json = Record<string, unknown>;

export interface ToolCall {
  id: string;
  name: string;
  input: Json;
  arguments: string;
}
export interface Plan {
  /** answer with this call instead of text */
  toolCall?: ToolCall | undefined;
  /** reasoning / thinking text, sent before the answer */
  reasoning?: string | undefined;
  /** the reply text built from the usual echo (the identity for plain text requests, so they do not change) */
  replyText: (echo: string) => string;
}

export interface ToolSpec {
  name: string;
  schema: unknown;
}
export interface Image {
  mime: string;
  bytes: number;
}

export const REASONING = 'Let me think about this.';

export const isObj = (v: unknown): v is Json => !!v && typeof v === 'object' && !Array.isArray(v);
export const blocksOf = (content: unknown): Json[] => (Array.isArray(content) ? content.filter(isObj) : []);
const messagesOf = (body: Json): Json[] =>
  Array.isArray(body.messages) ? body.messages.map((m) => (isObj(m) ? m : {})) : [];
const textOf = (content: unknown): string =>
  typeof content === 'string'
    ? content
    : blocksOf(content)
        .flatMap((b) => (b.type === 'text' && typeof b.text === 'string' ? [b.text] : []))
        .join(' ');
const lastIndexOf = (messages: Json[], role: string) => messages.map((m) => m.role).lastIndexOf(role);
export const withNote = (note: string, text: string) => (note ? `${note} ${text}` : text);

/** Word pieces as the simulator streams text (each keeps its leading space). */
export const pieces = (s: string) => s.match(/\s*\S+/g) ?? [''];
const wordCount = (s: string) => s.split(/\s+/).filter(Boolean).length;
const digest = (s: string) => createHash('sha256').update(s).digest();
/** Ids derived from the conversation: stable for a request, different for every turn. */
const idFor = (prefix: string, seed: string) => `${prefix}${digest(seed).toString('hex').slice(0, 24)}`;
/** The thinking block's signature: opaque to the client, tied to the text as a real upstream's is. */
export const signatureOf = (thinking: string) => `sig_${digest(thinking).toString('base64')}`;

// ---------------- images ----------------

/** Strict base64 (what upstreams accept); undefined when the data or the mime type is not an image. */
export function imageOf(mime: unknown, data: unknown): Image | undefined {
  if (typeof mime !== 'string' || !/^image\/[\w.+-]+$/.test(mime)) return undefined;
  if (typeof data !== 'string' || !data || data.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(data))
    return undefined;
  return { mime, bytes: Buffer.from(data, 'base64').length };
}

/** Only `data:` URLs: the simulator is offline and cannot fetch a remote image. */
export function dataUrlImage(part: Json): Image | undefined {
  const url = isObj(part.image_url) ? part.image_url.url : undefined;
  const m = typeof url === 'string' ? /^data:([^;,]+);base64,(.*)$/s.exec(url) : null;
  return m ? imageOf(m[1], m[2]) : undefined;
}

export const nativeImage = (block: Json): Image | undefined =>
  isObj(block.source) && block.source.type === 'base64'
    ? imageOf(block.source.media_type, block.source.data)
    : undefined;

/** A message's native image blocks, including those inside tool results (images from tools, VS Code ≥ 1.106). */
export const nativeImageBlocks = (m: Json): Json[] =>
  blocksOf(m.content).flatMap((b) =>
    b.type === 'image' ? [b] : b.type === 'tool_result' ? blocksOf(b.content).filter((x) => x.type === 'image') : [],
  );
export const compatibleImageParts = (m: Json): Json[] => blocksOf(m.content).filter((p) => p.type === 'image_url');

export function imageNote(images: Image[]): string {
  if (!images.length) return '';
  const list = images.map((i) => `${i.mime}, ${i.bytes} bytes`).join('; ');
  return `I see ${images.length} image${images.length === 1 ? '' : 's'} (${list}).`;
}

// ---------------- tool calls ----------------

/** A sample value for a schema property; undefined for the types we do not fill (objects, arrays). */
function sampleValue(prop: unknown, text: string): unknown {
  const type = isObj(prop) ? [prop.type].flat().find((t) => t !== 'null') : undefined;
  if (type === 'string') return text.trim().slice(0, 60);
  if (type === 'number' || type === 'integer') return 1;
  if (type === 'boolean') return true;
  return undefined;
}

/** Arguments for the required properties (or the first one when none is required). */
function argsFor(schema: unknown, text: string): Json {
  const props = isObj(schema) && isObj(schema.properties) ? schema.properties : {};
  const required =
    isObj(schema) && Array.isArray(schema.required)
      ? schema.required.filter((k): k is string => typeof k === 'string')
      : [];
  const args: Json = {};
  for (const key of required.length ? required : Object.keys(props).slice(0, 1)) {
    const value = sampleValue(props[key], text);
    if (value !== undefined) args[key] = value;
  }
  return args;
}

/** The forced tool, else the tool named in the user's text, else the first. */
function pickTool(tools: ToolSpec[], text: string, forced: string | undefined): ToolSpec {
  const lower = text.toLowerCase();
  return tools.find((t) => t.name === forced) ?? tools.find((t) => lower.includes(t.name.toLowerCase())) ?? tools[0];
}

/**
 * What the user asked: Copilot's agent sends the user's words inside `<userRequest>` after blocks of
 * context (environment, workspace, reminders that name tools), so the last such block is the request;
 * any other text is the request as it is.
 */
export function askedText(text: string): string {
  const blocks = [...text.matchAll(/<userRequest>\s*([\s\S]*?)\s*<\/userRequest>/g)];
  return blocks.at(-1)?.[1] ?? text;
}

export function toolCall(
  tools: ToolSpec[],
  said: string,
  forced: string | undefined,
  idPrefix: string,
  seed: string,
): ToolCall {
  const text = askedText(said);
  const tool = pickTool(tools, text, forced);
  const input = argsFor(tool.schema, text);
  return { id: idFor(idPrefix, seed), name: tool.name, input, arguments: JSON.stringify(input) };
}

/** Three fragments, as upstreams stream arguments in pieces (clients must concatenate). */
export function thirds(s: string): string[] {
  const n = Math.ceil(s.length / 3);
  return [s.slice(0, n), s.slice(n, 2 * n), s.slice(2 * n)].filter(Boolean);
}

/**
 * Reasoning spends the output budget first, as upstreams count it: the reasoning is cut to
 * `maxTokens` words and the answer gets what is left — so a reasoning model given a tiny
 * max_tokens answers nothing, with finish_reason "length" / stop_reason "max_tokens".
 */
export function spendReasoning(plan: Plan, maxTokens: number | undefined): { plan: Plan; answerBudget?: number } {
  if (maxTokens === undefined) return { plan };
  if (!plan.reasoning) return { plan, answerBudget: maxTokens };
  const words = pieces(plan.reasoning);
  const reasoning = words.slice(0, maxTokens).join('').trim();
  return { plan: { ...plan, reasoning }, answerBudget: Math.max(0, maxTokens - words.length) };
}

/** Output tokens as word counts, as for text: the arguments' words, plus the reasoning's. */
export function outputTokens(plan: Plan, textPieces: number): number {
  const answer = plan.toolCall ? wordCount(plan.toolCall.arguments) : textPieces;
  return answer + (plan.reasoning ? wordCount(plan.reasoning) : 0);
}

// ---------------- custom tools' format (judged on both OpenAI surfaces by constraints/) ----------------

/**
 * A custom (free-form) tool's `format`, as OpenAI takes it on both surfaces (openai-node
 * `ChatCompletionCustomTool.Custom.Format` and `Responses.CustomTool.format`): free text, or a grammar
 * in Lark or a regex. Chat Completions nests the grammar (`format.grammar.{syntax, definition}`),
 * Responses puts it flat (`format.{syntax, definition}`). provider-constraints.md has no row quoting a
 * refusal of a malformed one, so the words are OpenAI's usual ones for a missing parameter and an
 * enum value (as for `tools[].type`, §1a).
 */
export function customFormatError(
  format: unknown,
  at: string,
  grammarAt: 'nested' | 'flat',
): { message: string; param: string; code: 'invalid_value' | null } | undefined {
  const missing = (param: string) => ({ message: `Missing required parameter: '${param}'.`, param, code: null });
  const invalid = (value: unknown, param: string, allowed: [string, string]) => ({
    message: `Invalid value: '${String(value)}'. Supported values are: '${allowed[0]}' and '${allowed[1]}'.`,
    param,
    code: 'invalid_value' as const,
  });
  if (format === undefined) return undefined;
  if (!isObj(format) || format.type === undefined) return missing(`${at}.type`);
  if (format.type !== 'text' && format.type !== 'grammar')
    return invalid(format.type, `${at}.type`, ['text', 'grammar']);
  if (format.type === 'text') return undefined;
  const g = grammarAt === 'nested' ? format.grammar : format;
  const gAt = grammarAt === 'nested' ? `${at}.grammar` : at;
  if (!isObj(g)) return missing(gAt);
  if (g.syntax === undefined) return missing(`${gAt}.syntax`);
  if (g.syntax !== 'lark' && g.syntax !== 'regex') return invalid(g.syntax, `${gAt}.syntax`, ['lark', 'regex']);
  if (typeof g.definition !== 'string' || !g.definition) return missing(`${gAt}.definition`);
  return undefined;
}

// ---------------- compatible (/v1/chat/completions): the plan ----------------

/** Models that reason before answering: "reason"/"think" in the name (as DeepSeek's), DeepSeek V4 and R1, Kimi k2.5+ (thinking unless disabled). */
const reasons = (body: Json) =>
  /reason|think|^deepseek-(v4|r1)|^kimi-(k2\.[5-9]|k3)/i.test(String(body.model)) &&
  !(isObj(body.thinking) && body.thinking.type === 'disabled');

function compatibleResultsText(messages: Json[], results: Json[]): string {
  const names = new Map(
    messages
      .flatMap((m) => blocksOf(m.tool_calls))
      .map((c) => [
        c.id,
        isObj(c.function) ? String(c.function.name) : isObj(c.custom) ? String(c.custom.name) : 'unknown',
      ]),
  );
  return results.map((r) => `Tool ${names.get(r.tool_call_id) ?? 'unknown'} returned: ${textOf(r.content)}`).join(' ');
}

const forcedCompatible = (choice: unknown) =>
  isObj(choice) && isObj(choice.function) ? String(choice.function.name) : undefined;
/** The function tools (the simulated model calls those only: custom tools are accepted, never called). */
const compatibleTools = (tools: unknown): ToolSpec[] =>
  Array.isArray(tools)
    ? (tools as Json[])
        .filter((t) => t.type === 'function')
        .map((t: { function?: Json }) => ({ name: String(t.function!.name), schema: t.function!.parameters }))
    : [];

/** Plans the reply to a chat-completions request the rules admitted (reasoning first for reasoning models). */
export function planCompatible(body: Json): Plan {
  const messages = messagesOf(body);
  const reasoning = reasons(body) ? REASONING : undefined;
  // The turn after the last assistant message: tool results, and the user's text and images (Copilot sends images as their own user message).
  const turn = messages.slice(lastIndexOf(messages, 'assistant') + 1);
  const userTurn = turn.filter((m) => m.role === 'user');
  const note = imageNote(userTurn.flatMap(compatibleImageParts).map((p) => dataUrlImage(p)!));
  const results = turn.filter((m) => m.role === 'tool');
  if (results.length) return { reasoning, replyText: () => withNote(note, compatibleResultsText(messages, results)) };
  const tools = compatibleTools(body.tools);
  if (!tools.length || messages.at(-1)?.role !== 'user' || body.tool_choice === 'none')
    return { reasoning, replyText: (echo) => withNote(note, echo) };
  const text = userTurn.map((m) => textOf(m.content)).join(' ');
  return {
    reasoning,
    toolCall: toolCall(tools, text, forcedCompatible(body.tool_choice), 'call_', JSON.stringify(messages)),
    replyText: (echo) => echo,
  };
}

// ---------------- compatible: the wire ----------------

const openAICall = (call: ToolCall) => ({
  id: call.id,
  type: 'function',
  function: { name: call.name, arguments: call.arguments },
});

/** The non-streamed `choices[0].message`. */
export function compatibleMessage(plan: Plan, text: string): Json {
  const reasoning = plan.reasoning ? { reasoning_content: plan.reasoning } : {};
  if (plan.toolCall)
    return { role: 'assistant', content: null, ...reasoning, tool_calls: [openAICall(plan.toolCall)], refusal: null };
  return { role: 'assistant', content: text, refusal: null, ...reasoning };
}

/** The streamed deltas in order (the finish chunk is the caller's): role, reasoning, then the text or the call. */
export function compatibleDeltas(plan: Plan, textPieces: string[]): Json[] {
  const reasoning = plan.reasoning ? pieces(plan.reasoning).map((p) => ({ reasoning_content: p })) : [];
  const call = plan.toolCall;
  if (!call) return [{ role: 'assistant', content: '' }, ...reasoning, ...textPieces.map((p) => ({ content: p }))];
  const head = { index: 0, id: call.id, type: 'function', function: { name: call.name, arguments: '' } };
  const args = thirds(call.arguments).map((a) => ({ tool_calls: [{ index: 0, function: { arguments: a } }] }));
  return [{ role: 'assistant', content: null }, ...reasoning, { tool_calls: [head] }, ...args];
}

export const compatibleFinish = (plan: Plan, truncated: boolean) =>
  plan.toolCall ? 'tool_calls' : truncated ? 'length' : 'stop';

// ---------------- native (/v1/messages): the plan ----------------

/** The tool_result blocks of a user message. */
export const toolResults = (m: Json | undefined): Json[] =>
  m?.role === 'user' ? blocksOf(m.content).filter((b) => b.type === 'tool_result') : [];

function nativeResultsText(assistant: Json | undefined, results: Json[]): string {
  const names = new Map(
    blocksOf(assistant?.content)
      .filter((b) => b.type === 'tool_use')
      .map((b) => [b.id, String(b.name)]),
  );
  return results.map((r) => `Tool ${names.get(r.tool_use_id) ?? 'unknown'} returned: ${textOf(r.content)}`).join(' ');
}

const forcedNative = (choice: unknown) => (isObj(choice) && choice.type === 'tool' ? String(choice.name) : undefined);
const nativeTools = (tools: unknown): ToolSpec[] =>
  Array.isArray(tools) ? tools.map((t: Json) => ({ name: String(t.name), schema: t.input_schema })) : [];

/**
 * Plans the reply to a messages request the rules admitted: a thinking block first when `thinking.type`
 * is "enabled" or "adaptive", or always for a reasoning model ("reason"/"think" in its name, as
 * DeepSeek's Anthropic-style API serves deepseek-reasoner).
 */
export function planNative(body: Json): Plan {
  const messages = messagesOf(body);
  const thinking = isObj(body.thinking) && (body.thinking.type === 'enabled' || body.thinking.type === 'adaptive');
  const reasoning = thinking || /reason|think/i.test(String(body.model)) ? REASONING : undefined;
  const last = messages.at(-1)!;
  const note = last.role === 'user' ? imageNote(nativeImageBlocks(last).map((b) => nativeImage(b)!)) : '';
  const results = toolResults(last);
  if (results.length)
    return { reasoning, replyText: () => withNote(note, nativeResultsText(messages.at(-2), results)) };
  const tools = nativeTools(body.tools);
  const noTool = !tools.length || last.role !== 'user' || (isObj(body.tool_choice) && body.tool_choice.type === 'none');
  if (noTool) return { reasoning, replyText: (echo) => withNote(note, echo) };
  return {
    reasoning,
    toolCall: toolCall(tools, textOf(last.content), forcedNative(body.tool_choice), 'toolu_', JSON.stringify(messages)),
    replyText: (echo) => echo,
  };
}

// ---------------- native: the wire ----------------

/** The non-streamed `content`: thinking first, then the text or the tool_use (no text when thinking took the budget). */
export function nativeContent(plan: Plan, text: string): Json[] {
  const thinking = plan.reasoning
    ? [{ type: 'thinking', thinking: plan.reasoning, signature: signatureOf(plan.reasoning) }]
    : [];
  const call = plan.toolCall;
  if (!call && !text && plan.reasoning) return thinking;
  return [
    ...thinking,
    call ? { type: 'tool_use', id: call.id, name: call.name, input: call.input } : { type: 'text', text },
  ];
}

const blockStart = (block: Json) => ({ type: 'content_block_start', content_block: block });
const blockDelta = (delta: Json) => ({ type: 'content_block_delta', delta });
const blockStop = { type: 'content_block_stop' };

const thinkingEvents = (text: string) => [
  blockStart({ type: 'thinking', thinking: '', signature: '' }),
  ...pieces(text).map((p) => blockDelta({ type: 'thinking_delta', thinking: p })),
  blockDelta({ type: 'signature_delta', signature: signatureOf(text) }),
  blockStop,
];
const toolUseEvents = (call: ToolCall) => [
  blockStart({ type: 'tool_use', id: call.id, name: call.name, input: {} }),
  ...thirds(call.arguments).map((p) => blockDelta({ type: 'input_json_delta', partial_json: p })),
  blockStop,
];
const textEvents = (textPieces: string[]) => [
  blockStart({ type: 'text', text: '' }),
  ...textPieces.map((p) => blockDelta({ type: 'text_delta', text: p })),
  blockStop,
];

/** The content block events (each event's name is its `type`), indexed in order: thinking, then text or tool_use. */
export function nativeBlockEvents(plan: Plan, textPieces: string[]): Json[] {
  const answered = plan.toolCall || textPieces.length || !plan.reasoning;
  const blocks = [
    ...(plan.reasoning ? [thinkingEvents(plan.reasoning)] : []),
    ...(answered ? [plan.toolCall ? toolUseEvents(plan.toolCall) : textEvents(textPieces)] : []),
  ];
  return blocks.flatMap((events, index) => events.map(({ type, ...rest }) => ({ type, index, ...rest })));
}

export const nativeStopReason = (plan: Plan, truncated: boolean) =>
  plan.toolCall ? 'tool_use' : truncated ? 'max_tokens' : 'end_turn';
