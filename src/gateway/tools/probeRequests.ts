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
} as const;

/** The Anthropic betas Claude Code sends on every inference call. */
export const CLAUDE_CODE_BETAS = 'claude-code-20250219,interleaved-thinking-2025-05-14';

/** The output limit of every probe (the Responses API's minimum is 16). */
export const PROBE_MAX_TOKENS = 16;

const PROMPT = 'Reply with the word ok.';

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
  /** Codex: `wire_api` of the provider ("responses" is the only one it accepts) */
  wireApi?: { value: string; from: ToolSource } | undefined;
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
    succeeded: (text: string) => /data:\s*\[DONE\]/.test(text) && !/data:\s*\{"error"/.test(text),
  };
}

const BUILDERS = { 'claude-code': claudeCode, codex, 'gemini-cli': geminiCli, opencode };

/** The tool's request for this base, model and credential. */
export function probeRequest(
  tool: ToolId,
  base: string,
  model: string,
  cred: NonNullable<ProbeTarget['credential']>,
): ProbeRequest {
  const b = BUILDERS[tool](base.trim(), model);
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
};
