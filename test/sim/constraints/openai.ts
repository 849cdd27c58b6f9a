/**
 * What OpenAI refuses on its two surfaces (shared/reference/provider-constraints.md §1), per model
 * family: sampling parameters and `max_tokens` on the reasoning family, effort values per model,
 * the Responses API's minimums and moved fields, and — for every model on Chat Completions, as
 * OpenAI-compatible upstreams check them — tool shapes and tool-call pairing.
 */
import { blocksOf, compatibleImageParts, customFormatError, dataUrlImage } from '../agentic';
import { inputError } from '../responses';
import { isObj, openai, quoted, sent, type Json, type Refusal, type Rule, type UpstreamRequest } from './refusal';

// ---------------- families ----------------

/** §6.1: the reasoning family on Chat (`o1*`, `o3*`, `o4*`, `gpt-5*`), not the `-chat-latest` models. */
const REASONING = /^(?!.*-chat-latest)(o1|o3|o4|gpt-5)/;
/** The reasoning family on Responses (§1b: gpt-5, gpt-5.x, `*-codex`, the o-series). */
const REASONING_RESPONSES = /^(?!.*-chat-latest)(o1|o3|o4|gpt-5)|codex/;
/** Models without reasoning (gpt-4o, gpt-4.1…): §1a "reasoning_effort sent to a non-reasoning model". */
const NON_REASONING_CHAT = /^(gpt-4|gpt-3\.5|chatgpt-4o)/;
/** The negation of responses.ts `isReasoningModel` (which models answer with reasoning items): §1b's non-reasoning models. */
const NON_REASONING_RESPONSES = /^(?!o\d|gpt-5)(?!.*(codex|reason|think))/i;
const ANY = /./;

const undated = (model: string) => model.replace(/-\d{4}-\d{2}-\d{2}$/, '');
/** `N` of gpt-5.N (0 for gpt-5 and its -mini/-nano), undefined outside gpt-5. */
const minorOf = (model: string): number | undefined => {
  const m = /^gpt-5(?:\.(\d+))?/.exec(model);
  return m ? Number(m[1] ?? 0) : undefined;
};

/**
 * §1a "Effort values per model" (the community matrix and the errors quoted there). Models not listed
 * (gpt-5.4 to 5.6, gpt-5.5-codex, o3-pro…) have unconfirmed sets (§7): their effort is not judged.
 */
const EFFORTS: ReadonlyArray<[RegExp, readonly string[]]> = [
  [/^gpt-5(-mini|-nano)?$/, ['minimal', 'low', 'medium', 'high']],
  [/^gpt-5\.1$/, ['none', 'low', 'medium', 'high']],
  [/^gpt-5(\.1)?-codex(-mini)?$/, ['low', 'medium', 'high']],
  [/^(gpt-5\.1-codex-max|gpt-5\.2-codex)$/, ['low', 'medium', 'high', 'xhigh']],
  [/^gpt-5\.2$/, ['none', 'low', 'medium', 'high', 'xhigh']],
  [/^gpt-5-pro$/, ['high']],
  [/^gpt-5\.2-pro$/, ['medium', 'high', 'xhigh']],
  [/^gpt-5.*-chat-latest$/, ['medium']],
  [/^(o1|o3|o3-mini|o4-mini)$/, ['low', 'medium', 'high']],
];
const effortsOf = (model: string) => EFFORTS.find(([re]) => re.test(undated(model)))?.[1];
/** The list gpt-5.1's null refusal quotes (§1a), for a model whose own set is unconfirmed. */
const GPT_5_1_EFFORTS = ['none', 'low', 'medium', 'high'];

/**
 * §1a: gpt-5.1 and later accept `temperature`, `top_p` and `logprobs` only at effort `none`, their
 * default; gpt-5, -mini, -nano, the codex and pro models (no `none`) and the o-series never do.
 */
function samplingOpen(model: string, effort: unknown): boolean {
  const minor = minorOf(model);
  return minor !== undefined && minor >= 1 && !/codex|pro/.test(model) && (effort ?? 'none') === 'none';
}

const unsupported = (param: string, code: string | null = 'unsupported_parameter') =>
  openai(`Unsupported parameter: '${param}' is not supported with this model.`, param, code);
const effortOnChat = (req: UpstreamRequest) => req.body.reasoning_effort;
const effortOnResponses = (req: UpstreamRequest) => (isObj(req.body.reasoning) ? req.body.reasoning.effort : undefined);
const closedOnChat = (req: UpstreamRequest) => !samplingOpen(req.model, effortOnChat(req));
const functionTools = (tools: unknown) => blocksOf(tools).some((t) => t.type === 'function');

// ---------------- Chat Completions: shapes and pairing (every model) ----------------

const TOOL_NAME = /^[a-zA-Z0-9_-]+$/;

/** §1a tool names: the pattern, then at most 64 characters (`at` is the name's param). */
function toolNameError(name: unknown, at: string): Refusal | undefined {
  if (typeof name !== 'string' || !TOOL_NAME.test(name))
    return openai(
      `Invalid '${at}': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`,
      at,
      'invalid_value',
    );
  if (name.length > 64)
    return openai(
      `Invalid '${at}': string too long. Expected a string with maximum length 64, but got ${name.length} instead.`,
      at,
      'string_above_max_length',
    );
  return undefined;
}

/**
 * One entry of `tools`: a function (`{type:'function', function:{name, parameters?}}`) or a custom
 * tool (`{type:'custom', custom:{name, description?, format?}}`, openai-node `ChatCompletionCustomTool`;
 * Copilot CLI sends its apply_patch so), in OpenAI's words.
 */
function compatibleToolError(t: unknown, i: number): Refusal | undefined {
  const at = `tools[${i}]`;
  if (!isObj(t) || t.type === undefined) return openai(`Missing required parameter: '${at}.type'.`, `${at}.type`);
  if (t.type !== 'function' && t.type !== 'custom')
    return openai(
      `Invalid value: '${String(t.type)}'. Supported values are: 'function' and 'custom'.`,
      `${at}.type`,
      'invalid_value',
    );
  const kind = t.type;
  const f = t[kind];
  if (!isObj(f) || f.name === undefined) {
    const missing = `${at}.${kind}${isObj(f) ? '.name' : ''}`;
    return openai(`Missing required parameter: '${missing}'.`, missing);
  }
  const named = toolNameError(f.name, `${at}.${kind}.name`);
  if (named) return named;
  if (f.description !== undefined && typeof f.description !== 'string')
    return openai(
      `Invalid type for '${at}.${kind}.description': expected a string, but got ${typeof f.description} instead.`,
      `${at}.${kind}.description`,
    );
  if (kind === 'custom') {
    const e = customFormatError(f.format, `${at}.custom.format`, 'nested');
    return e && openai(e.message, e.param, e.code);
  }
  if (f.parameters !== undefined && !isObj(f.parameters))
    return openai(
      `Invalid type for '${at}.function.parameters': expected an object, but got ${typeof f.parameters} instead.`,
      `${at}.function.parameters`,
    );
  return undefined;
}

function compatibleToolsError(tools: unknown): Refusal | undefined {
  if (tools === undefined) return undefined;
  if (!Array.isArray(tools))
    return openai(`Invalid type for 'tools': expected an array of objects, but got ${typeof tools} instead.`, 'tools');
  // Copilot deletes `tools: []` because OpenAI refuses it.
  if (!tools.length)
    return openai(
      "Invalid 'tools': empty array. Expected an array with minimum length 1, but got an empty array instead.",
      'tools',
    );
  return tools.map(compatibleToolError).find(Boolean);
}

export const messagesOf = (body: Json): Json[] =>
  Array.isArray(body.messages) ? body.messages.map((m) => (isObj(m) ? m : {})) : [];
export const callIdsOf = (m: Json): string[] =>
  blocksOf(m.tool_calls).flatMap((c) => (typeof c.id === 'string' ? [c.id] : []));

/** The names of the calls in earlier assistant messages (§1a: checked as the tools' names are). */
function callNamesError(messages: Json[]): Refusal | undefined {
  for (const [n, m] of messages.entries())
    for (const [k, call] of blocksOf(m.tool_calls).entries())
      if (isObj(call.function)) {
        const e = toolNameError(call.function.name, `messages[${n}].tool_calls[${k}].function.name`);
        if (e) return e;
      }
  return undefined;
}

const unansweredCalls = (open: Set<string>, at: number) =>
  openai(
    `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...open].join(', ')}`,
    `messages.[${at}].role`,
  );

/** Tool messages answer, right after it, every call of the assistant message before them; images only from the user. */
function compatibleMessagesError(messages: Json[]): Refusal | undefined {
  let open = new Set<string>();
  let caller = 0;
  for (const [n, m] of messages.entries()) {
    if (m.role !== 'user' && compatibleImageParts(m).length)
      return openai(
        `Image URLs are only allowed for messages with role 'user', but this message with role '${String(m.role)}' contains an image URL.`,
        `messages.[${n}].content`,
      );
    if (m.role === 'tool') {
      if (!open.delete(String(m.tool_call_id)))
        return openai(
          "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
          `messages.[${n}].role`,
        );
      continue;
    }
    if (open.size) return unansweredCalls(open, n);
    open = new Set(m.role === 'assistant' ? callIdsOf(m) : []);
    caller = n;
  }
  return open.size ? unansweredCalls(open, caller) : undefined;
}

const compatibleImagesError = (messages: Json[]) =>
  messages.flatMap(compatibleImageParts).some((p) => !dataUrlImage(p)) ? openai('Invalid image data') : undefined;

// ---------------- Chat Completions: the reasoning family ----------------

/** OpenAI's own models (the request-shape rules below are OpenAI's; other OpenAI-compatible vendors differ, §6.5). */
const OPENAI_MODELS = /^(gpt-|o\d|chatgpt-|codex-)/;

const CHAT: Rule[] = [
  {
    row: '§1a stream_options only with stream: true',
    surface: 'chat',
    models: OPENAI_MODELS,
    refuse: (req) =>
      sent(req.body.stream_options) && req.body.stream !== true
        ? openai("The 'stream_options' parameter is only allowed when 'stream' is enabled.", 'stream_options')
        : undefined,
  },
  {
    row: '§1a parallel_tool_calls only with tools',
    surface: 'chat',
    models: OPENAI_MODELS,
    refuse: (req) =>
      sent(req.body.parallel_tool_calls) && !(Array.isArray(req.body.tools) && req.body.tools.length)
        ? openai(
            "Invalid value for 'parallel_tool_calls': 'parallel_tool_calls' is only allowed when 'tools' are specified.",
            'parallel_tool_calls',
          )
        : undefined,
  },
  {
    row: '§1a at most 128 tools',
    surface: 'chat',
    models: OPENAI_MODELS,
    refuse: (req) =>
      Array.isArray(req.body.tools) && req.body.tools.length > 128
        ? openai(
            `Invalid 'tools': array too long. Expected an array with maximum length 128, but got an array with length ${req.body.tools.length} instead.`,
            'tools',
            'array_above_max_length',
          )
        : undefined,
  },
  {
    row: 'vscode-lm-api.md §7, provider-constraints §1a tool names: tools and tool-call names',
    surface: 'chat',
    models: ANY,
    refuse: (req) => compatibleToolsError(req.body.tools) ?? callNamesError(messagesOf(req.body)),
  },
  {
    row: '§1a every tool_calls id answered by a tool message; a tool message follows tool_calls',
    surface: 'chat',
    models: ANY,
    refuse: (req) => compatibleMessagesError(messagesOf(req.body)),
  },
  {
    row: 'vscode-lm-api.md §7 image parts: base64 data URLs the upstream can read',
    surface: 'chat',
    models: ANY,
    refuse: (req) => compatibleImagesError(messagesOf(req.body)),
  },
  {
    row: '§1a max_tokens refused on the reasoning family (send max_completion_tokens)',
    surface: 'chat',
    models: REASONING,
    refuse: (req) =>
      sent(req.body.max_tokens)
        ? openai(
            "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
            'max_tokens',
            'unsupported_parameter',
          )
        : undefined,
  },
  {
    row: '§1a temperature ≠ 1 refused (gpt-5.1+ at effort none excepted)',
    surface: 'chat',
    models: REASONING,
    refuse: (req) => {
      const t = req.body.temperature;
      return sent(t) && t !== 1 && closedOnChat(req)
        ? openai(
            `Unsupported value: 'temperature' does not support ${String(t)} with this model. Only the default (1) value is supported.`,
            'temperature',
            'unsupported_value',
          )
        : undefined;
    },
  },
  {
    row: '§1a top_p refused (gpt-5.1+ at effort none excepted)',
    surface: 'chat',
    models: REASONING,
    refuse: (req) => (sent(req.body.top_p) && closedOnChat(req) ? unsupported('top_p') : undefined),
  },
  {
    row: '§1a logprobs refused (gpt-5.1+ at effort none excepted)',
    surface: 'chat',
    models: REASONING,
    refuse: (req) => (sent(req.body.logprobs) && closedOnChat(req) ? unsupported('logprobs') : undefined),
  },
  {
    // A penalty of 0 passing is reported for Azure only (unconfirmed on OpenAI): any value is refused.
    row: '§1a presence_penalty and frequency_penalty refused',
    surface: 'chat',
    models: REASONING,
    refuse: (req) =>
      ['presence_penalty', 'frequency_penalty'].filter((p) => sent(req.body[p])).map((p) => unsupported(p))[0],
  },
  {
    // Not o3/o4-mini (client lists only) nor gpt-5.5+ (unconfirmed, §7).
    row: '§1a stop refused on gpt-5, -mini, -nano up to gpt-5.4',
    surface: 'chat',
    models: /^(?!.*-chat-latest)gpt-5(?!\.([5-9]|\d\d))/,
    refuse: (req) => (sent(req.body.stop) ? unsupported('stop') : undefined),
  },
  {
    row: '§1a reasoning_effort: null refused (absent is fine)',
    surface: 'chat',
    models: /^(o1|o3|o4|gpt-5)/,
    refuse: (req) =>
      'reasoning_effort' in req.body && req.body.reasoning_effort === null
        ? openai(
            `Unsupported value: 'reasoning_effort' does not support null with this model. Supported values are: ${quoted(effortsOf(req.model) ?? GPT_5_1_EFFORTS)}.`,
            'reasoning_effort',
            'unsupported_value',
          )
        : undefined,
  },
  {
    row: '§1a effort values per model (Chat wording)',
    surface: 'chat',
    models: /^(o1|o3|o4|gpt-5)/,
    refuse: (req) => {
      const effort = effortOnChat(req);
      const allowed = effortsOf(req.model);
      return typeof effort === 'string' && allowed && !allowed.includes(effort)
        ? openai(
            `Unsupported value: 'reasoning_effort' does not support '${effort}' with this model. Supported values are: ${quoted(allowed)}.`,
            'reasoning_effort',
            'unsupported_value',
          )
        : undefined;
    },
  },
  {
    // gpt-5.2 to 5.5 default to effort none; on gpt-5.6 the server default triggers it too.
    row: '§1a function tools + reasoning_effort ≠ none refused on gpt-5.2+',
    surface: 'chat',
    models: /^gpt-5\.([2-9]|\d\d)/,
    refuse: (req) => {
      const effort = effortOnChat(req);
      const minor = minorOf(req.model)!;
      if (!functionTools(req.body.tools) || (sent(effort) ? effort === 'none' : minor < 6)) return undefined;
      const how =
        minor >= 6
          ? "To use function tools, use /v1/responses or set reasoning_effort to 'none'."
          : 'Please use /v1/responses instead.';
      return openai(
        `Function tools with reasoning_effort are not supported for ${req.model} in /v1/chat/completions. ${how}`,
        'reasoning_effort',
      );
    },
  },
  {
    row: '§1a reasoning_effort sent to a non-reasoning model (even "none")',
    surface: 'chat',
    models: NON_REASONING_CHAT,
    refuse: (req) =>
      sent(req.body.reasoning_effort) ? openai('Unrecognized request argument supplied: reasoning_effort') : undefined,
  },
  {
    row: '§1a system and developer roles refused by o1-mini / o1-preview',
    surface: 'chat',
    models: /^o1-(mini|preview)/,
    refuse: (req) => {
      const n = messagesOf(req.body).findIndex((m) => m.role === 'system' || m.role === 'developer');
      if (n < 0) return undefined;
      const role = String(messagesOf(req.body)[n].role);
      return openai(
        `Unsupported value: 'messages[${n}].role' does not support '${role}' with this model.`,
        `messages[${n}].role`,
        'unsupported_value',
      );
    },
  },
];

// ---------------- Responses ----------------

const moved = (field: string, to: string) =>
  openai(
    `Unsupported parameter: '${field}'. In the Responses API, this parameter has moved to '${to}'. Try again with the new parameter. See the API documentation for more information: https://platform.openai.com/docs/api-reference/responses/create.`,
    null,
    'unsupported_parameter',
  );
const closedOnResponses = (req: UpstreamRequest) => !samplingOpen(req.model, effortOnResponses(req));

const RESPONSES: Rule[] = [
  {
    row: '§1b reasoning_effort "has moved to" reasoning.effort',
    surface: 'responses',
    models: ANY,
    refuse: (req) => ('reasoning_effort' in req.body ? moved('reasoning_effort', 'reasoning.effort') : undefined),
  },
  {
    row: '§1b messages "has moved to" input',
    surface: 'responses',
    models: ANY,
    refuse: (req) => ('messages' in req.body ? moved('messages', 'input') : undefined),
  },
  {
    row: '§1b previous_response_id must name a stored response (none is, with store false)',
    surface: 'responses',
    models: ANY,
    refuse: (req) =>
      typeof req.body.previous_response_id === 'string'
        ? openai(
            `Previous response with id '${req.body.previous_response_id}' not found.`,
            'previous_response_id',
            'previous_response_not_found',
          )
        : undefined,
  },
  {
    row: '§1b max_output_tokens ≥ 16, every model',
    surface: 'responses',
    models: ANY,
    refuse: (req) => {
      const n = req.body.max_output_tokens;
      return typeof n === 'number' && n < 16
        ? openai(
            `Invalid 'max_output_tokens': integer below minimum value. Expected a value >= 16, but got ${n} instead.`,
            'max_output_tokens',
            'integer_below_min_value',
          )
        : undefined;
    },
  },
  {
    row: '§1b temperature ≠ 1 refused on the reasoning family (gpt-5.1+ at effort none excepted)',
    surface: 'responses',
    models: REASONING_RESPONSES,
    refuse: (req) =>
      sent(req.body.temperature) && req.body.temperature !== 1 && closedOnResponses(req)
        ? unsupported('temperature', null)
        : undefined,
  },
  {
    row: '§1b top_p ≠ 1 refused on the reasoning family (gpt-5.1+ at effort none excepted)',
    surface: 'responses',
    models: REASONING_RESPONSES,
    refuse: (req) =>
      sent(req.body.top_p) && req.body.top_p !== 1 && closedOnResponses(req) ? unsupported('top_p', null) : undefined,
  },
  {
    row: '§1b reasoning.effort on a non-reasoning model',
    surface: 'responses',
    models: NON_REASONING_RESPONSES,
    refuse: (req) => (sent(effortOnResponses(req)) ? unsupported('reasoning.effort') : undefined),
  },
  {
    // The code is unconfirmed (§7): null.
    row: '§1b include reasoning.encrypted_content on a non-reasoning model',
    surface: 'responses',
    models: NON_REASONING_RESPONSES,
    refuse: (req) =>
      Array.isArray(req.body.include) && req.body.include.includes('reasoning.encrypted_content')
        ? openai('Encrypted content is not supported with this model.', 'include')
        : undefined,
  },
  {
    row: '§1a effort values per model (Responses wording)',
    surface: 'responses',
    models: /^(o1|o3|o4|gpt-5)/,
    refuse: (req) => {
      const effort = effortOnResponses(req);
      const allowed = effortsOf(req.model);
      return typeof effort === 'string' && allowed && !allowed.includes(effort)
        ? openai(
            `Unsupported value: '${effort}' is not supported with the '${req.model}' model. Supported values are: ${quoted(allowed)}.`,
            'reasoning.effort',
            'unsupported_value',
          )
        : undefined;
    },
  },
  {
    row: '§1b input items: tools, fc_ ids, function_call/output pairing, reasoning items (responses-api.md §4–5)',
    surface: 'responses',
    models: ANY,
    refuse: (req) => inputError(req.body, req.secret),
  },
];

export const OPENAI_RULES: readonly Rule[] = [...CHAT, ...RESPONSES];
