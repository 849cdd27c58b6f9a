/**
 * The request each terminal tool sends, built from its configuration as the tool resolved it: the
 * path it appends to its base address (so a base with one /v1 too many is called as the tool would,
 * /v1/v1/messages), its auth header, its identifying headers and its body shape, with a tiny output
 * limit (a probe is a billed call). Pure: probes.ts sends it.
 */
import { joinUrl } from '../endpoint';
import type { Surface } from '../errors/gatewayError';
import type { CredentialScheme } from '../http/egress';
import type { ToolId, ToolSource } from './types';

/** The versions the probes present themselves as (the tools' identifying headers). */
export const PROBE_CLIENT_VERSIONS = {
  'claude-code': '2.1.240',
  codex: '0.130.0',
  'gemini-cli': '0.40.0',
  opencode: '1.0.0',
  /** Copilot CLI sends the OpenAI and Anthropic SDKs' own user agents (its 1.0.102: these) */
  'copilot-cli': { openai: '5.20.1', anthropic: '0.94.0' },
} as const;

/** The Anthropic betas Claude Code sends on every inference call. */
export const CLAUDE_CODE_BETAS = 'claude-code-20250219,interleaved-thinking-2025-05-14';

/** The output limit of every probe (the Responses API's minimum is 16). */
export const PROBE_MAX_TOKENS = 16;

const PROMPT = 'Reply with the word ok.';

/** A Chat Completions stream that worked: it reached [DONE] without an error chunk. */
const chatSucceeded = (text: string) => /data:\s*\[DONE\]/.test(text) && !/data:\s*\{"error"/.test(text);

/** What a probe sends, as the tool resolved it (a value and where it came from). */
export interface ProbeTarget {
  tool: ToolId;
  /** the base address exactly as the tool reads it (not normalised: a wrong one is the point) */
  baseUrl?: { value: string; from: ToolSource } | undefined;
  /** the credential's value (never reported), the header the tool sends it in, and where it came from */
  credential?:
    | {
        value: string;
        header: 'authorization' | 'x-api-key' | 'x-goog-api-key';
        from: ToolSource;
        /** another configured gateway whose token this is: it is never sent to this one */
        foreign?: string | undefined;
      }
    | undefined;
  /** the credential comes from a script the tool runs (Claude Code's apiKeyHelper): never run by Model Relay */
  helper?: ToolSource | undefined;
  model?: { value: string; from: ToolSource } | undefined;
  /**
   * Codex: `wire_api` of the provider ("responses" is the only one it accepts); Copilot CLI:
   * COPILOT_PROVIDER_WIRE_API ("completions", the default, or "responses")
   */
  wireApi?: { value: string; from: ToolSource } | undefined;
  /** Copilot CLI: COPILOT_PROVIDER_TYPE ("openai", the default, "anthropic" or "azure") */
  providerType?: { value: string; from: ToolSource } | undefined;
}

export interface ProbeRequest {
  url: string;
  /** what the report shows: method and the path the tool calls (with its query), e.g. "POST /v1/messages?beta=true" */
  request: string;
  /** the tool's headers without its credential: the gate attaches that, the way `scheme` says */
  headers: Record<string, string>;
  scheme: CredentialScheme;
  body: string;
  /** the surface whose error words apply */
  surface: Surface;
  /** how to recognise a stream that worked */
  succeeded(text: string): boolean;
}

/** The path and query of a URL as it goes on the wire. */
function pathOf(url: string): string {
  try {
    const u = new URL(url);
    return `${u.pathname}${u.search}`;
  } catch {
    return url;
  }
}

/** How the tool sends its credential (attached by the credential gate, egress.ts, only at its gateway's origins). */
export function schemeOf(c: NonNullable<ProbeTarget['credential']>): CredentialScheme {
  return c.header === 'authorization' ? 'bearer' : c.header;
}

/** Reasoning models get Codex's reasoning block and encrypted reasoning (it sends them only for those). */
const codexReasons = (model: string) => /^(o\d|gpt-5)|codex/i.test(model);

/** `POST {base}/v1/messages?beta=true`, streamed, with Claude Code's headers. */
function claudeCode(base: string, model: string) {
  const url = joinUrl(base, '/v1/messages?beta=true');
  return {
    url,
    surface: 'native' as const,
    headers: {
      'anthropic-version': '2023-06-01',
      'anthropic-beta': CLAUDE_CODE_BETAS,
      'x-app': 'cli',
      'user-agent': `claude-cli/${PROBE_CLIENT_VERSIONS['claude-code']} (external, cli)`,
      'content-type': 'application/json',
      accept: 'application/json',
    },
    body: {
      model,
      max_tokens: PROBE_MAX_TOKENS,
      system: [{ type: 'text', text: "You are Claude Code, Anthropic's official CLI for Claude." }],
      messages: [{ role: 'user', content: [{ type: 'text', text: PROMPT }] }],
      stream: true,
    },
    succeeded: (text: string) => /event:\s*message_stop/.test(text) && !/event:\s*error/.test(text),
  };
}

/** `POST {base_url}/responses`, streamed, in Codex's body shape. */
function codex(base: string, model: string) {
  const reasons = codexReasons(model);
  return {
    url: joinUrl(base, '/responses'),
    surface: 'responses' as const,
    headers: {
      originator: 'codex_cli_rs',
      'user-agent': `codex_cli_rs/${PROBE_CLIENT_VERSIONS.codex}`,
      'content-type': 'application/json',
      accept: 'text/event-stream',
    },
    body: {
      model,
      instructions: 'You are Codex, a coding agent.',
      input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: PROMPT }] }],
      tools: [],
      tool_choice: 'auto',
      parallel_tool_calls: false,
      ...(reasons ? { reasoning: { effort: 'low', summary: 'auto' } } : {}),
      store: false,
      stream: true,
      include: reasons ? ['reasoning.encrypted_content'] : [],
      max_output_tokens: PROBE_MAX_TOKENS,
    },
    succeeded: (text: string) => /"type"\s*:\s*"response\.(completed|incomplete)"/.test(text),
  };
}

/** `POST {base}/v1beta/models/{model}:streamGenerateContent?alt=sse` with `x-goog-api-key`. */
function geminiCli(base: string, model: string) {
  return {
    url: joinUrl(base, `/v1beta/models/${encodeURIComponent(model)}:streamGenerateContent?alt=sse`),
    surface: 'compatible' as const,
    headers: {
      'user-agent': `GeminiCLI/${PROBE_CLIENT_VERSIONS['gemini-cli']}/${model}`,
      'x-goog-api-client': 'google-genai-sdk/1.30.0 gl-node/v22',
      'content-type': 'application/json',
      accept: 'text/event-stream',
    },
    body: {
      contents: [{ role: 'user', parts: [{ text: PROMPT }] }],
      generationConfig: { maxOutputTokens: PROBE_MAX_TOKENS, temperature: 0 },
    },
    succeeded: (text: string) => /"candidates"\s*:/.test(text) && !/"error"\s*:/.test(text),
  };
}

/**
 * `POST {baseURL}/chat/completions` (@ai-sdk/openai-compatible), streamed, with Bearer. opencode's
 * `model` is `<provider>/<model id>`: the request carries the model id (which may hold a `/` itself).
 */
function opencode(base: string, configured: string) {
  const slash = configured.indexOf('/');
  const model = slash > 0 ? configured.slice(slash + 1) : configured;
  return {
    url: joinUrl(base, '/chat/completions'),
    surface: 'compatible' as const,
    headers: {
      'user-agent': `opencode/${PROBE_CLIENT_VERSIONS.opencode} ai-sdk/openai-compatible`,
      'content-type': 'application/json',
      accept: 'text/event-stream',
    },
    body: {
      model,
      messages: [{ role: 'user', content: PROMPT }],
      max_tokens: PROBE_MAX_TOKENS,
      stream: true,
      stream_options: { include_usage: true },
    },
    succeeded: chatSucceeded,
  };
}

/**
 * What Copilot CLI 1.0.102 sends per model, from its built-in catalog (observed against the
 * simulator): the models it knows as reasoning ones get `reasoning_effort: "medium"` and temperature
 * 1 (on Responses `reasoning.effort`), any other its "safe defaults" (temperature 0, top_p 0.95, no
 * penalties); its apply_patch is a custom (free-form) tool for gpt-4o… and …codex… models, and
 * Gemini models get `tool_choice: "validated"`. Every request carries its tools (bash first), streams
 * and asks for usage; on Responses it never stores and always asks for encrypted reasoning.
 */
const copilotReasons = (model: string) => /^(gpt-4o|gpt-5|claude-|gemini-)/i.test(model);
const copilotCustomPatch = (model: string) => /^gpt-4o|codex/i.test(model);
const COPILOT_SYSTEM = 'You are the GitHub Copilot CLI, a terminal assistant built by GitHub.';
/** Its bash tool, the schema trimmed. */
const COPILOT_BASH = {
  name: 'bash',
  description: 'Runs a Bash command.',
  parameters: {
    type: 'object',
    properties: {
      command: { type: 'string', description: 'The Bash command and arguments to run.' },
      description: { type: 'string', description: 'A short human-readable description of what the command does.' },
    },
    required: ['command', 'description'],
  },
};
/** Its apply_patch: a free-form tool whose input a Lark grammar constrains. */
const COPILOT_PATCH = {
  name: 'apply_patch',
  description: 'Use the `apply_patch` tool to edit files. This is a FREEFORM tool, so do not wrap the patch in JSON.',
};
const PATCH_GRAMMAR = { syntax: 'lark', definition: 'start: begin_patch hunk+ end_patch' };

const copilotHeaders = (sdk: 'openai' | 'anthropic') => ({
  'user-agent':
    sdk === 'openai'
      ? `OpenAI/JS ${PROBE_CLIENT_VERSIONS['copilot-cli'].openai}`
      : `Anthropic/JS ${PROBE_CLIENT_VERSIONS['copilot-cli'].anthropic}`,
  'x-stainless-lang': 'js',
  'x-initiator': 'user',
  'x-interaction-type': 'conversation-user',
  'content-type': 'application/json',
  accept: 'application/json',
});

/** The path Copilot CLI appends to its base address for its provider type and wire API. */
export function copilotPath(
  target: Pick<ProbeTarget, 'providerType' | 'wireApi'>,
): '/v1/messages' | '/responses' | '/chat/completions' {
  if (target.providerType?.value === 'anthropic') return '/v1/messages';
  return target.wireApi?.value === 'responses' ? '/responses' : '/chat/completions';
}

/** COPILOT_PROVIDER_TYPE anthropic: the Anthropic SDK's request (without its thinking block: the tiny limit is below any thinking budget). */
function copilotMessages(base: string, model: string) {
  return {
    url: joinUrl(base, '/v1/messages'),
    surface: 'native' as const,
    headers: { ...copilotHeaders('anthropic'), 'anthropic-version': '2023-06-01' },
    body: {
      model,
      max_tokens: PROBE_MAX_TOKENS,
      temperature: copilotReasons(model) ? 1 : 0,
      system: [{ type: 'text', text: COPILOT_SYSTEM }],
      messages: [{ role: 'user', content: [{ type: 'text', text: PROMPT }] }],
      tools: [
        { name: COPILOT_BASH.name, description: COPILOT_BASH.description, input_schema: COPILOT_BASH.parameters },
      ],
      stream: true,
    },
    succeeded: (text: string) => /event:\s*message_stop/.test(text) && !/event:\s*error/.test(text),
  };
}

/** COPILOT_PROVIDER_WIRE_API responses: the OpenAI SDK's Responses request. */
function copilotResponses(base: string, model: string) {
  const patch = { type: 'custom', ...COPILOT_PATCH, format: { type: 'grammar', ...PATCH_GRAMMAR } };
  return {
    url: joinUrl(base, '/responses'),
    surface: 'responses' as const,
    headers: copilotHeaders('openai'),
    body: {
      model,
      instructions: COPILOT_SYSTEM,
      input: [{ role: 'user', content: [{ type: 'input_text', text: PROMPT }], type: 'message' }],
      tools: [{ type: 'function', ...COPILOT_BASH }, ...(copilotCustomPatch(model) ? [patch] : [])],
      reasoning: copilotReasons(model) ? { effort: 'medium', summary: 'auto' } : { summary: 'auto' },
      store: false,
      stream: true,
      include: ['reasoning.encrypted_content'],
      parallel_tool_calls: true,
      max_output_tokens: PROBE_MAX_TOKENS,
    },
    succeeded: (text: string) => /"type"\s*:\s*"response\.(completed|incomplete)"/.test(text),
  };
}

/**
 * The default: the OpenAI SDK's Chat Completions request. The output limit is the one Chat
 * Completions takes for the model (`max_completion_tokens` for the o-series and gpt-5). A Claude
 * model gets no `reasoning_effort`: new-api turns it into a thinking budget (at least 1280, without
 * raising max_tokens), which Anthropic refuses above the probe's tiny limit — the probe's limit, not
 * the tool's (provider-constraints.md §5c, §2b).
 */
function copilotChat(base: string, model: string) {
  const patch = { type: 'custom', custom: { ...COPILOT_PATCH, format: { type: 'grammar', grammar: PATCH_GRAMMAR } } };
  return {
    url: joinUrl(base, '/chat/completions'),
    surface: 'compatible' as const,
    headers: copilotHeaders('openai'),
    body: {
      model,
      messages: [
        { role: 'system', content: COPILOT_SYSTEM },
        { role: 'user', content: PROMPT },
      ],
      ...(copilotReasons(model)
        ? { ...(/^claude-/i.test(model) ? {} : { reasoning_effort: 'medium' }), temperature: 1 }
        : { temperature: 0, top_p: 0.95, frequency_penalty: 0, presence_penalty: 0 }),
      tools: [{ type: 'function', function: COPILOT_BASH }, ...(copilotCustomPatch(model) ? [patch] : [])],
      ...(/^gemini-/i.test(model) ? { tool_choice: 'validated' } : {}),
      ...(/^(o\d|gpt-5)/i.test(model) ? { max_completion_tokens: PROBE_MAX_TOKENS } : { max_tokens: PROBE_MAX_TOKENS }),
      stream: true,
      stream_options: { include_usage: true },
    },
    succeeded: chatSucceeded,
  };
}

/** Copilot CLI with its own key: the request of its provider type and wire API (copilotPath). */
function copilotCli(base: string, model: string, api: Pick<ProbeTarget, 'providerType' | 'wireApi'>) {
  const path = copilotPath(api);
  if (path === '/v1/messages') return copilotMessages(base, model);
  return path === '/responses' ? copilotResponses(base, model) : copilotChat(base, model);
}

const BUILDERS = { 'claude-code': claudeCode, codex, 'gemini-cli': geminiCli, opencode, 'copilot-cli': copilotCli };

/** The tool's request for this base, model and credential (`api`: Copilot CLI's provider type and wire API). */
export function probeRequest(
  tool: ToolId,
  base: string,
  model: string,
  cred: NonNullable<ProbeTarget['credential']>,
  api: Pick<ProbeTarget, 'providerType' | 'wireApi'> = {},
): ProbeRequest {
  const b = BUILDERS[tool](base.trim(), model, api);
  return {
    url: b.url,
    request: `POST ${pathOf(b.url)}`,
    headers: b.headers,
    scheme: schemeOf(cred),
    body: JSON.stringify(b.body),
    surface: b.surface,
    succeeded: b.succeeded,
  };
}

/** The path the tool appends to its base address (what a 404 is about). */
export const TOOL_PATHS: Record<ToolId, string> = {
  'claude-code': '/v1/messages',
  codex: '/responses',
  'gemini-cli': '/v1beta/models/{model}:streamGenerateContent',
  opencode: '/chat/completions',
  /** by its provider type and wire API: copilotPath */
  'copilot-cli': '/chat/completions',
};
