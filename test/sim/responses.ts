/**
 * The simulator's Responses surface (`POST /v1/responses`), spoken as OpenAI does statelessly
 * (shared/reference/responses-api.md): validation with OpenAI's 400/404 texts (tool round trips,
 * images, replayed reasoning items whose encrypted content it verifies), the reply plan (agentic.ts's:
 * a tool call, an answer about tool results, an image note, reasoning first for reasoning models),
 * and its wire form: the Response object and the stream's typed events with sequence numbers.
 * Pure functions over the request body and a per-simulator secret: the server only frames them.
 */
import { createHash, createHmac } from 'node:crypto';
import {
  REASONING,
  blocksOf,
  customFormatError,
  imageNote,
  imageOf,
  isObj,
  pieces,
  thirds,
  toolCall,
  withNote,
  type Image,
  type Plan,
  type ToolSpec,
} from './agentic';
import { openai, type Refusal } from './constraints/refusal';

type Json = Record<string, unknown>;

/** Reasoning models (gpt-5*, o-series, codex, "reason"/"think" names) reason first and return reasoning items. */
export const isReasoningModel = (model: string) => /^(o\d|gpt-5)|codex|reason|think/i.test(model);

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const NOT_PERSISTED =
  'Items are not persisted when `store` is set to false. Try again with `store` set to true, or remove this item from your input.';

const bad = (message: string, param: string | null = null, code: string | null = null): Refusal =>
  openai(message, param, code);
/** An item id the upstream cannot find (404 under `store: false`, responses-api.md §4). */
const notFound = (id: string): Refusal =>
  openai(`Item with id '${id}' not found. ${NOT_PERSISTED}`, 'input', null, 404);
const digest = (s: string) => createHash('sha256').update(s).digest('hex');
const idFor = (prefix: string, seed: string) => `${prefix}${digest(seed).slice(0, 32)}`;
/** The shape of the function-call item ids this upstream issues (idFor('fc_', …)). */
const ISSUED_CALL_ID = /^fc_[0-9a-f]{32}$/;

// ---------------- encrypted reasoning ----------------

/**
 * The encrypted content of a reasoning item: opaque to the client, bound to the item (its id and
 * summary) and to the upstream that made it (the secret: another simulator cannot verify it, as
 * another upstream account cannot).
 */
export function encryptedContentOf(secret: string, id: string, summary: readonly string[]): string {
  const mac = createHmac('sha256', secret)
    .update(`${id}\n${summary.join('\n')}`)
    .digest('base64url');
  return `gAAAAA${Buffer.from(JSON.stringify({ id, mac })).toString('base64url')}`;
}

const summaryTexts = (item: Json): string[] =>
  blocksOf(item.summary).map((s) => (typeof s.text === 'string' ? s.text : ''));

// ---------------- validation ----------------

/**
 * The tool types OpenAI's Responses API accepts: `function` and `custom` (named, the model calls them
 * with JSON arguments or free text; Codex's apply_patch is a custom tool with a grammar) and the
 * hosted tools (no name; Codex sends `web_search` and `local_shell`).
 */
const TOOL_TYPES = [
  'function',
  'custom',
  'file_search',
  'web_search',
  'web_search_2025_08_26',
  'web_search_preview',
  'web_search_preview_2025_03_11',
  'computer_use_preview',
  'code_interpreter',
  'image_generation',
  'local_shell',
  'shell',
  'apply_patch',
  'mcp',
  'tool_search',
  'namespace',
];
const NAMED_TOOLS = ['function', 'custom'];
const quoted = (list: string[]) =>
  `${list
    .slice(0, -1)
    .map((v) => `'${v}'`)
    .join(', ')}, and '${list.at(-1)}'`;

function toolsError(tools: unknown): Refusal | undefined {
  if (tools === undefined) return undefined;
  if (!Array.isArray(tools))
    return bad(`Invalid type for 'tools': expected an array of objects, but got ${typeof tools} instead.`, 'tools');
  for (const [i, t] of tools.entries()) {
    if (!isObj(t) || t.type === undefined) return bad(`Missing required parameter: 'tools[${i}].type'.`, `tools[${i}]`);
    if (!TOOL_TYPES.includes(String(t.type)))
      return bad(
        `Invalid value: '${String(t.type)}'. Supported values are: ${quoted(TOOL_TYPES)}.`,
        `tools[${i}].type`,
        'invalid_value',
      );
    if (!NAMED_TOOLS.includes(String(t.type))) continue;
    // The chat-completions shape (`function: {name, …}`) is the commonest mistake: it has no top-level name.
    if (t.name === undefined) return bad(`Missing required parameter: 'tools[${i}].name'.`, `tools[${i}].name`);
    if (typeof t.name !== 'string' || !TOOL_NAME.test(t.name))
      return bad(
        `Invalid 'tools[${i}].name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`,
        `tools[${i}].name`,
      );
    if (t.type === 'function' && t.parameters !== undefined && !isObj(t.parameters))
      return bad(`Invalid type for 'tools[${i}].parameters': expected an object.`, `tools[${i}].parameters`);
    if (t.type === 'custom') {
      const e = customFormatError(t.format, `tools[${i}].format`, 'flat');
      if (e) return bad(e.message, e.param, e.code);
    }
  }
  return undefined;
}

/** A data URL's image; undefined when it is not a base64 image data URL (the simulator fetches nothing). */
function dataUrlImage(url: unknown): Image | undefined {
  const m = typeof url === 'string' ? /^data:([^;,]+);base64,(.*)$/s.exec(url) : null;
  return m ? imageOf(m[1], m[2]) : undefined;
}

const imageError = (where: string) =>
  bad(
    `Invalid '${where}.image_url'. Expected a base64-encoded data URL with an image MIME type (e.g. 'data:image/png;base64,aW1nIGJ5dGVzIGhlcmU='), but got an invalid value.`,
    `${where}.image_url`,
    'invalid_value',
  );

/** Input parts (a message's, a tool output's): text, or images as data URLs. */
function partsError(parts: unknown, where: string): Refusal | undefined {
  if (typeof parts === 'string') return undefined;
  if (!Array.isArray(parts)) return bad(`Invalid type for '${where}': expected a string or an array.`, where);
  for (const [j, p] of parts.entries()) {
    const at = `${where}[${j}]`;
    if (!isObj(p)) return bad(`Invalid type for '${at}': expected an object.`, at);
    if (p.type === 'input_image' && !dataUrlImage(p.image_url)) return imageError(at);
    if (!['input_text', 'input_image', 'input_file', 'output_text', 'refusal'].includes(String(p.type)))
      return bad(
        `Invalid value: '${String(p.type)}'. Supported values are: 'input_text', 'input_image', 'output_text', 'refusal', and 'input_file'.`,
        `${at}.type`,
        'invalid_value',
      );
  }
  return undefined;
}

/** A replayed reasoning item: found only with its encrypted content, which must be this upstream's. */
function reasoningError(item: Json, next: Json | undefined, secret: string): Refusal | undefined {
  const id = String(item.id ?? '');
  if (typeof item.encrypted_content !== 'string' || !item.encrypted_content) return notFound(id);
  if (item.encrypted_content !== encryptedContentOf(secret, id, summaryTexts(item)))
    return bad(
      `The encrypted content for item ${id} could not be verified. Reason: Encrypted content organization_id did not match the target organization.`,
      null,
      'invalid_encrypted_content',
    );
  const follows =
    next &&
    (next.type === 'function_call' ||
      next.type === 'custom_tool_call' ||
      next.type === 'reasoning' ||
      next.role === 'assistant');
  return follows
    ? undefined
    : bad(`Item '${id}' of type 'reasoning' was provided without its required following item.`);
}

const unanswered = (open: Set<string>) => bad(`No tool output found for function call ${[...open][0]}.`, 'input');

/** One input item; `open` holds the calls not answered yet. */
function itemError(item: Json, i: number, next: Json | undefined, open: Set<string>, secret: string) {
  const at = `input[${i}]`;
  const type = item.type ?? 'message';
  if (type === 'message') {
    // A new user message with calls unanswered: every call needs its output first.
    if (item.role === 'user' && open.size) return unanswered(open);
    if (!['user', 'assistant', 'system', 'developer'].includes(String(item.role)))
      return bad(
        `Invalid value: '${String(item.role)}'. Supported values are: 'assistant', 'system', 'developer', and 'user'.`,
        `${at}.role`,
      );
    return partsError(item.content, `${at}.content`);
  }
  if (type === 'function_call') {
    // provider-constraints.md §1b: a function_call item id begins with 'fc' (param and code are not
    // quoted there: OpenAI's usual ones for an invalid value).
    if (item.id !== undefined && !String(item.id).startsWith('fc'))
      return bad(
        `Invalid '${at}.id': '${String(item.id)}'. Expected an ID that begins with 'fc'.`,
        `${at}.id`,
        'invalid_value',
      );
    // An id this upstream issued, replayed with the whole item (call_id, name, arguments), is taken as
    // the item itself — Codex replays its calls so under `store: false`; a foreign id is not found.
    if (typeof item.id === 'string' && !ISSUED_CALL_ID.test(item.id)) return notFound(item.id);
    if (typeof item.call_id !== 'string' || typeof item.name !== 'string' || typeof item.arguments !== 'string')
      return bad(`Missing required parameter: '${at}.call_id'.`, `${at}.call_id`);
    open.add(item.call_id);
    return undefined;
  }
  if (type === 'custom_tool_call') {
    if (typeof item.call_id !== 'string' || typeof item.name !== 'string' || typeof item.input !== 'string')
      return bad(`Missing required parameter: '${at}.call_id'.`, `${at}.call_id`);
    open.add(item.call_id);
    return undefined;
  }
  if (type === 'custom_tool_call_output') {
    if (!open.delete(String(item.call_id)))
      return bad(`No tool call found for custom tool call output with call_id ${String(item.call_id)}.`, 'input');
    return partsError(item.output, `${at}.output`);
  }
  if (type === 'function_call_output') {
    if (!open.delete(String(item.call_id)))
      return bad(`No tool call found for function call output with call_id ${String(item.call_id)}.`, 'input');
    return partsError(item.output, `${at}.output`);
  }
  if (type === 'reasoning') return reasoningError(item, next, secret);
  return bad(`Invalid value: '${String(type)}'.`, `${at}.type`, 'invalid_value');
}

/** The input's items (a string `input` is one user message). */
export const itemsOf = (body: Json): Json[] =>
  typeof body.input === 'string'
    ? [{ role: 'user', content: body.input }]
    : (body.input as unknown[]).map((x) => (isObj(x) ? x : {}));

/**
 * The input as OpenAI checks it with `store: false` (the rule table's row for it, constraints/openai.ts):
 * its type, the tools, then each item — pairing, item ids, replayed reasoning verified. The first refusal.
 */
export function inputError(body: Json, secret: string): Refusal | undefined {
  if (typeof body.input !== 'string' && !Array.isArray(body.input))
    return bad("Invalid type for 'input': expected one of a string or an array of input items.", 'input');
  const tools = toolsError(body.tools);
  if (tools) return tools;
  const items = itemsOf(body);
  const open = new Set<string>();
  for (const [i, item] of items.entries()) {
    const e = itemError(item, i, items[i + 1], open, secret);
    if (e) return e;
  }
  return open.size ? unanswered(open) : undefined;
}

// ---------------- the plan ----------------

const textOfParts = (content: unknown): string =>
  typeof content === 'string'
    ? content
    : blocksOf(content)
        .flatMap((p) => (typeof p.text === 'string' ? [p.text] : []))
        .join(' ');

/** A call the model made: a function's (JSON arguments) or a custom tool's (free-text input). */
const isCall = (item: Json) => item.type === 'function_call' || item.type === 'custom_tool_call';

/** The items after the model's last output (its message, call or reasoning): this turn's input. */
function thisTurn(items: Json[]): Json[] {
  let last = -1;
  items.forEach((item, i) => {
    if (item.role === 'assistant' || isCall(item) || item.type === 'reasoning') last = i;
  });
  return items.slice(last + 1);
}

const turnImages = (turn: Json[]): Image[] =>
  turn
    .flatMap((item) => [...blocksOf(item.content), ...blocksOf(item.output)])
    .filter((p) => p.type === 'input_image')
    .map((p) => dataUrlImage(p.image_url)!);

function resultsText(items: Json[], outputs: Json[]): string {
  const names = new Map(items.filter(isCall).map((i) => [i.call_id, String(i.name)]));
  return outputs.map((o) => `Tool ${names.get(o.call_id) ?? 'unknown'} returned: ${textOfParts(o.output)}`).join(' ');
}

const forcedTool = (choice: unknown) => (isObj(choice) && choice.type === 'function' ? String(choice.name) : undefined);

/** The reply to a valid request (reasoning first for reasoning models). */
export function planResponses(body: Json): Plan {
  const items = itemsOf(body);
  const reasoning = isReasoningModel(String(body.model)) ? REASONING : undefined;
  const turn = thisTurn(items);
  const note = imageNote(turnImages(turn));
  const outputs = turn.filter((i) => i.type === 'function_call_output' || i.type === 'custom_tool_call_output');
  if (outputs.length) return { reasoning, replyText: () => withNote(note, resultsText(items, outputs)) };
  // The simulated model calls function tools only (custom and hosted tools are accepted, never called).
  const tools: ToolSpec[] = Array.isArray(body.tools)
    ? (body.tools as Json[])
        .filter((t) => t.type === 'function')
        .map((t) => ({ name: String(t.name), schema: t.parameters }))
    : [];
  if (!tools.length || items.at(-1)?.role !== 'user' || body.tool_choice === 'none')
    return { reasoning, replyText: (echo) => withNote(note, echo) };
  const text = turn
    .filter((i) => i.role === 'user')
    .map((i) => textOfParts(i.content))
    .join(' ');
  return {
    reasoning,
    toolCall: toolCall(tools, text, forcedTool(body.tool_choice), 'call_', JSON.stringify(items)),
    replyText: (echo) => echo,
  };
}

/** The user's text of this turn, as the echo reply quotes it. */
export const promptOf = (body: Json): string => {
  const users = itemsOf(body).filter((i) => i.role === 'user');
  return textOfParts(users.at(-1)?.content);
};

// ---------------- the wire ----------------

export interface ResponseParts {
  id: string;
  model: string;
  plan: Plan;
  /** the answer's word pieces (empty when the budget went to reasoning) */
  textPieces: string[];
  truncated: boolean;
  usage: { input_tokens: number; output_tokens: number; reasoning_tokens: number };
  /** the encrypted content is returned only when the request includes it */
  encrypted: boolean;
  secret: string;
  body: Json;
}

/** The output items: a reasoning item, then the message or the function call (none when reasoning took the budget). */
export function outputItems(r: ResponseParts): Json[] {
  const out: Json[] = [];
  if (r.plan.reasoning) {
    const id = idFor('rs_', `${r.id}:rs`);
    const summary = [r.plan.reasoning];
    out.push({
      type: 'reasoning',
      id,
      summary: summary.map((text) => ({ type: 'summary_text', text })),
      ...(r.encrypted ? { encrypted_content: encryptedContentOf(r.secret, id, summary) } : {}),
      status: 'completed',
    });
  }
  const call = r.plan.toolCall;
  if (call)
    out.push({
      type: 'function_call',
      id: idFor('fc_', `${r.id}:fc`),
      call_id: call.id,
      name: call.name,
      arguments: call.arguments,
      status: 'completed',
    });
  else if (r.textPieces.length || !r.plan.reasoning)
    out.push({
      type: 'message',
      id: idFor('msg_', `${r.id}:msg`),
      role: 'assistant',
      status: r.truncated ? 'incomplete' : 'completed',
      content: [{ type: 'output_text', text: r.textPieces.join(''), annotations: [], logprobs: [] }],
    });
  return out;
}

const incomplete = (r: ResponseParts) =>
  r.truncated || (!r.plan.toolCall && !r.textPieces.length && !!r.plan.reasoning);

/** The Response object: `in_progress` (no output, no usage) for the stream's first events, else final. */
export function responseObject(r: ResponseParts, state: 'in_progress' | 'final'): Json {
  const final = state === 'final';
  const cut = final && incomplete(r);
  const b = r.body;
  return {
    id: r.id,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    status: final ? (cut ? 'incomplete' : 'completed') : 'in_progress',
    background: false,
    error: null,
    incomplete_details: cut ? { reason: 'max_output_tokens' } : null,
    instructions: typeof b.instructions === 'string' ? b.instructions : null,
    max_output_tokens: typeof b.max_output_tokens === 'number' ? b.max_output_tokens : null,
    model: r.model,
    output: final ? outputItems(r) : [],
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: { effort: r.plan.reasoning ? 'medium' : null, summary: null },
    store: false,
    temperature: typeof b.temperature === 'number' ? b.temperature : 1,
    text: { format: { type: 'text' } },
    tool_choice: b.tool_choice ?? 'auto',
    tools: Array.isArray(b.tools) ? b.tools : [],
    top_p: 1,
    truncation: 'disabled',
    usage: final
      ? {
          input_tokens: r.usage.input_tokens,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: r.usage.output_tokens,
          output_tokens_details: { reasoning_tokens: r.usage.reasoning_tokens },
          total_tokens: r.usage.input_tokens + r.usage.output_tokens,
        }
      : null,
    metadata: {},
  };
}

function reasoningEvents(item: Json, index: number): Json[] {
  const text = String((item.summary as Json[])[0].text);
  const at = { item_id: item.id, output_index: index, summary_index: 0 };
  const { encrypted_content: _e, ...opening } = item;
  return [
    {
      type: 'response.output_item.added',
      output_index: index,
      item: { ...opening, summary: [], status: 'in_progress' },
    },
    { type: 'response.reasoning_summary_part.added', ...at, part: { type: 'summary_text', text: '' } },
    ...pieces(text).map((delta) => ({ type: 'response.reasoning_summary_text.delta', ...at, delta })),
    { type: 'response.reasoning_summary_text.done', ...at, text },
    { type: 'response.reasoning_summary_part.done', ...at, part: { type: 'summary_text', text } },
    { type: 'response.output_item.done', output_index: index, item },
  ];
}

function messageEvents(item: Json, index: number, textPieces: string[]): Json[] {
  const at = { item_id: item.id, output_index: index, content_index: 0 };
  const text = textPieces.join('');
  const part = { type: 'output_text', text, annotations: [], logprobs: [] };
  return [
    { type: 'response.output_item.added', output_index: index, item: { ...item, status: 'in_progress', content: [] } },
    { type: 'response.content_part.added', ...at, part: { ...part, text: '' } },
    ...textPieces.map((delta) => ({ type: 'response.output_text.delta', ...at, delta, logprobs: [] })),
    { type: 'response.output_text.done', ...at, text, logprobs: [] },
    { type: 'response.content_part.done', ...at, part },
    { type: 'response.output_item.done', output_index: index, item },
  ];
}

function callEvents(item: Json, index: number): Json[] {
  const args = String(item.arguments);
  const at = { item_id: item.id, output_index: index };
  return [
    {
      type: 'response.output_item.added',
      output_index: index,
      item: { ...item, arguments: '', status: 'in_progress' },
    },
    ...thirds(args).map((delta) => ({ type: 'response.function_call_arguments.delta', ...at, delta })),
    { type: 'response.function_call_arguments.done', ...at, name: item.name, arguments: args },
    { type: 'response.output_item.done', output_index: index, item },
  ];
}

/** Every event of the stream in order, numbered: created, in_progress, each item's events, then the terminal one. */
export function responseEvents(r: ResponseParts): Json[] {
  const items = outputItems(r).flatMap((item, index) =>
    item.type === 'reasoning'
      ? reasoningEvents(item, index)
      : item.type === 'function_call'
        ? callEvents(item, index)
        : messageEvents(item, index, r.textPieces),
  );
  const start = responseObject(r, 'in_progress');
  const final = responseObject(r, 'final');
  const events = [
    { type: 'response.created', response: start },
    { type: 'response.in_progress', response: start },
    ...items,
    { type: final.status === 'incomplete' ? 'response.incomplete' : 'response.completed', response: final },
  ];
  return events.map((e, sequence_number) => ({ ...e, sequence_number }));
}

/** A failure inside the stream after `sequence` events: `response.failed` (with its error) or a bare `error` event. */
export function failureEvent(
  r: ResponseParts,
  sequence: number,
  kind: 'failed' | 'error',
  e: { code: string; message: string },
): Json {
  if (kind === 'error')
    return { type: 'error', code: e.code, message: e.message, param: null, sequence_number: sequence };
  const failed = { ...responseObject(r, 'in_progress'), status: 'failed', error: e };
  return { type: 'response.failed', sequence_number: sequence, response: failed };
}
