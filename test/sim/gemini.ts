/**
 * The simulator's Gemini surface, as Gemini CLI calls it (shared/reference/cli-tools-setup.md §4):
 * `POST /v1beta/models/{model}:generateContent` and `:streamGenerateContent?alt=sse` with the key in
 * `x-goog-api-key` (or `?key=`). new-api serves these routes (router/relay-router.go: `/v1beta/models/*path`,
 * TokenAuth reading `x-goog-api-key` / `key`) with its own OpenAI-shaped errors; one-api has no `/v1beta`
 * at all (its catch-all serves the console page); the strict profile answers Google's own error shapes.
 * Pure functions over the request: the server authenticates, checks the model and frames them.
 */
import { isObj } from './agentic';

type Json = Record<string, unknown>;

/** A Gemini route: the model in the path and whether it streams. */
export interface GeminiRoute {
  model: string;
  stream: boolean;
  /** `alt=sse`: server-sent events; without it a stream is one JSON array */
  sse: boolean;
}

/** The route of `POST /v1beta/models/{model}:{method}`, or undefined for any other path. */
export function geminiRoute(method: string, path: string, search: URLSearchParams): GeminiRoute | undefined {
  const m = /^\/v1beta\/models\/([^/:]+):(generateContent|streamGenerateContent)$/.exec(path);
  if (method !== 'POST' || !m) return undefined;
  return {
    model: decodeURIComponent(m[1]),
    stream: m[2] === 'streamGenerateContent',
    sse: search.get('alt') === 'sse',
  };
}

/** The key Gemini clients send: `x-goog-api-key`, else `?key=` (new-api's TokenAuth copies either into Authorization). */
export function geminiKey(headers: Record<string, string | string[] | undefined>, search: URLSearchParams) {
  const h = headers['x-goog-api-key'];
  return (typeof h === 'string' && h.trim()) || search.get('key')?.trim() || undefined;
}

/** Google's error body: `{error: {code, message, status, details?}}`. */
export function googleError(code: number, message: string, status: string, reason?: string): Json {
  return {
    error: {
      code,
      message,
      status,
      ...(reason
        ? {
            details: [
              {
                '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
                reason,
                domain: 'googleapis.com',
                metadata: { service: 'generativelanguage.googleapis.com' },
              },
            ],
          }
        : {}),
    },
  };
}

/** Google's answers to a missing or unknown key (HTTP 403 and 400, not 401). */
export const GOOGLE_NO_KEY = {
  status: 403,
  body: googleError(
    403,
    "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
    'PERMISSION_DENIED',
  ),
};
export const GOOGLE_BAD_KEY = {
  status: 400,
  body: googleError(400, 'API key not valid. Please pass a valid API key.', 'INVALID_ARGUMENT', 'API_KEY_INVALID'),
};

/** Google's 404 for a model it does not serve. */
export const googleModelNotFound = (model: string) =>
  googleError(
    404,
    `models/${model} is not found for API version v1beta, or is not supported for generateContent. Call ListModels to see the list of available models and their supported methods.`,
    'NOT_FOUND',
  );

const textsOf = (parts: unknown): string[] =>
  Array.isArray(parts) ? parts.flatMap((p) => (isObj(p) && typeof p.text === 'string' ? [p.text] : [])) : [];

/** A request error in Google's words (`contents` missing or malformed), or undefined. */
export function geminiRequestError(body: Json): string | undefined {
  const contents = body.contents;
  if (!Array.isArray(contents) || contents.length === 0)
    return '* GenerateContentRequest.contents: contents is not specified';
  for (const [i, c] of contents.entries()) {
    if (!isObj(c) || !Array.isArray(c.parts) || c.parts.length === 0)
      return `* GenerateContentRequest.contents[${i}].parts: contents.parts must not be empty.`;
    if (c.role !== undefined && c.role !== 'user' && c.role !== 'model') return `Please use a valid role: user, model.`;
  }
  return undefined;
}

/** The last user turn's text (what the echo reply quotes). */
export function geminiPrompt(body: Json): string {
  const contents = Array.isArray(body.contents) ? (body.contents as unknown[]).filter(isObj) : [];
  const last = [...contents].reverse().find((c) => (c.role ?? 'user') === 'user');
  return textsOf(last?.parts).join('');
}

/** `generationConfig.maxOutputTokens`, when given. */
export function geminiMaxTokens(body: Json): number | undefined {
  const g = isObj(body.generationConfig) ? body.generationConfig : {};
  return typeof g.maxOutputTokens === 'number' ? g.maxOutputTokens : undefined;
}

export interface GeminiReply {
  model: string;
  responseId: string;
  pieces: string[];
  truncated: boolean;
  promptTokens: number;
}

/**
 * The `GenerateContentResponse` chunks of a reply: one per piece, the last with `finishReason`
 * (`STOP`, or `MAX_TOKENS` when cut by maxOutputTokens); each carries `usageMetadata` so far.
 */
export function geminiChunks(r: GeminiReply): Json[] {
  const pieces = r.pieces.length ? r.pieces : [''];
  return pieces.map((text, i) => {
    const last = i === pieces.length - 1;
    const out = i + 1;
    return {
      candidates: [
        {
          content: { parts: [{ text }], role: 'model' },
          ...(last ? { finishReason: r.truncated ? 'MAX_TOKENS' : 'STOP' } : {}),
          index: 0,
        },
      ],
      usageMetadata: {
        promptTokenCount: r.promptTokens,
        candidatesTokenCount: out,
        totalTokenCount: r.promptTokens + out,
      },
      modelVersion: r.model,
      responseId: r.responseId,
    };
  });
}

/** The non-streamed answer: one `GenerateContentResponse` with the whole text. */
export function geminiResponse(r: GeminiReply): Json {
  const chunks = geminiChunks({ ...r, pieces: [r.pieces.join('')] });
  const out = r.pieces.length;
  return {
    ...chunks[0],
    usageMetadata: {
      promptTokenCount: r.promptTokens,
      candidatesTokenCount: out,
      totalTokenCount: r.promptTokens + out,
    },
  };
}

/** SSE frames (`data: …` then a blank line; Google ends lines with CRLF, new-api with LF). */
export const geminiFrames = (chunks: Json[], crlf: boolean): string[] =>
  chunks.map((c) => `data: ${JSON.stringify(c)}${crlf ? '\r\n\r\n' : '\n\n'}`);

/** Google's status name for an HTTP status. */
export function googleStatus(status: number): string {
  const names: Record<number, string> = {
    400: 'INVALID_ARGUMENT',
    401: 'UNAUTHENTICATED',
    403: 'PERMISSION_DENIED',
    404: 'NOT_FOUND',
    413: 'INVALID_ARGUMENT',
    429: 'RESOURCE_EXHAUSTED',
    500: 'INTERNAL',
    503: 'UNAVAILABLE',
  };
  return names[status] ?? (status >= 500 ? 'INTERNAL' : 'FAILED_PRECONDITION');
}
