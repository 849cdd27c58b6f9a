/**
 * What the bench hands to our code, built against the code's own types: the chat webview's messages
 * (src/shared/chatProtocol.ts), the chat view's host wiring (src/host/chat/chatView.ts), the Usage
 * view's records and its message (src/shared/usageProtocol.ts), a set of gateways, the language-model provider's steps
 * (src/extension/lm/chatProvider.ts over src/host/lm) and the inline-completion engine's inputs
 * (src/host/completions/types.ts), and a batch of receipts (src/gateway/economy/receiptMatch.ts). Compiled with the tests (tsconfig.test.json → out/bench/messages.js)
 * and required by the rows in bench/*.mjs, so a change of any of these shapes fails `tsc` — and with
 * it `npm test` — instead of a row at run time. The rows pass only plain values (ids, text, sizes).
 */
import {
  chatStreamAcross,
  GatewaySet,
  LIST_ACROSS_BOUND_MS,
  listModelsAcross,
  parseRecords,
  receiptOf,
  reconcile,
  surfaceAdapter,
  type CompletionRequest,
  type ModelPrice,
  type ReceiptCall,
  type ReceiptContext,
  type Units,
  type GatewayClient,
  type GatewayModelList,
  type GatewayProfile,
  type Route,
  type Surface,
} from '../src/gateway';
import type { UsageRecord } from '../src/gateway/economy/usageTypes';
import { ChatView, type ChatViewInit } from '../src/host/chat/chatView';
import type { StateStore } from '../src/host/chat/chatStore';
import { sessionModels } from '../src/host/chat/modelTraits';
import { contextWindows } from '../src/host/completions/context';
import { CompletionEngine } from '../src/host/completions/engine';
import type {
  CompletionEngineDeps,
  CompletionSettings,
  DocumentSnapshot,
  Suggestion,
} from '../src/host/completions/types';
import { lmModelId, lmRoutes } from '../src/host/lm/lmGateways';
import { withNotices } from '../src/host/lm/lmNotices';
import { lmToChatRequest, type LmMessage, type LmOptions, type LmPart } from '../src/host/lm/lmRequest';
import type { ModelProfile } from '../src/host/lm/modelProfile';
import type { ThinkingCache } from '../src/host/lm/thinkingCache';
import type { TokenCounter } from '../src/host/lm/tokenCounter';
import { usageState } from '../src/host/usage/usageData';
import { callReceipt } from '../src/host/usage/receiptBook';
import {
  parseWebviewMessage,
  type ChatEntry,
  type ChatOptions,
  type ChatSnapshot,
  type HostToWebview,
  type ModelList,
} from '../src/shared/chatProtocol';
import type { UsageHostMessage, UsageViewState } from '../src/shared/usageProtocol';

// ---------------------------------------------------------------------------------------------
// The chat webview (rows 5, 5b, 5c)

/** A webview resource's origin in VS Code: images are shown from it, the page's script comes from it. */
export const WEBVIEW_ORIGIN = 'https://file+.vscode-resource.vscode-cdn.net';

/** The model picker's list: one gateway, the active one, with these models. */
export function modelList(ids: readonly string[], defaults = { compatible: ids[0] ?? '', native: '' }): ModelList {
  return {
    groups: [{ gateway: { id: 'bench', name: 'Bench' }, active: true, items: ids.map((id) => ({ id })), defaults }],
    loading: false,
  };
}

export function chatOptions(model: string, temperature: number | null = 0.7, maxTokens = 4096): ChatOptions {
  return { surface: 'compatible', model, system: '', temperature, maxTokens };
}

/** A conversation as the host posts it with `init`. */
export function chatSnapshot(entries: ChatEntry[], options: ChatOptions): ChatSnapshot {
  return { entries, options, busy: false, streaming: true };
}

/** A reply of the usual shape: paragraphs, a list and a short code block (about 1.2 KB). */
function replyText(i: number): string {
  return [
    `Here is what happens in step ${i}: the **client** reads the answer and keeps the \`state\` small.`,
    '',
    '- it reads the body once\n- it keeps the last few entries\n- it never stores image data',
    '',
    '```ts',
    `export function step${i}(input: string): number {`,
    '  const parts = input.split(",").map((p) => p.trim());',
    '  return parts.filter(Boolean).length;',
    '}',
    '```',
    '',
    `That is all for step ${i}; see [the docs](https://example.com/docs/${i}) for more. `.repeat(6),
  ].join('\n');
}

/**
 * `turns` turns; `imageReplies` of the replies (evenly spread, the last of each run) are generated
 * images, each an entry image by its webview URI (`src`), as the host posts it. The last reply's id
 * is `a<turns-1>`.
 */
export function longConversation(turns: number, imageReplies: number): ChatSnapshot {
  const every = turns / imageReplies;
  const entries: ChatEntry[] = [];
  for (let i = 0; i < turns; i++) {
    const image = i % every === every - 1;
    entries.push({
      id: `u${i}`,
      role: 'user',
      text: image ? `/image a lighthouse, ${i}` : `Question ${i}?`,
      createdAt: i,
    });
    const reply: ChatEntry = {
      id: `a${i}`,
      role: 'assistant',
      text: image ? '' : replyText(i),
      createdAt: i,
      status: 'done',
      surface: 'compatible',
      model: image ? 'gpt-image-1' : 'gpt-4o-mini',
      usage: { inputTokens: 120 + i, outputTokens: 300 },
      durationMs: 1800,
      finishReason: 'stop',
    };
    if (image) {
      reply.image = { prompt: `a lighthouse, ${i}` };
      reply.images = [
        {
          mimeType: 'image/png',
          src: `${WEBVIEW_ORIGIN}/home/user/.vscode/globalStorage/model-relay/chat-images/img-${i}.png`,
          name: `img-${i}.png`,
          bytes: 1_400_000,
        },
      ];
    }
    entries.push(reply);
  }
  return chatSnapshot(entries, chatOptions('gpt-4o-mini'));
}

/** The host's answer to `ready`: the conversation and the picker's list. */
export function initMessage(state: ChatSnapshot, models: ModelList = modelList(['gpt-4o-mini'])): HostToWebview {
  return { type: 'init', state, models };
}

/** A reply as it starts to stream: empty. */
function streamingReply(id: string, model: string): ChatEntry {
  return { id, role: 'assistant', text: '', createdAt: 0, status: 'streaming', surface: 'compatible', model };
}

/** A reply starting to stream: its entry, added empty. */
export function streamingReplyAdded(id: string, model: string): HostToWebview {
  return { type: 'entryAdded', entry: streamingReply(id, model) };
}

export function entryDelta(id: string, text: string): HostToWebview {
  return { type: 'entryDelta', id, text };
}

/**
 * A whole streamed reply as the host posts it into an empty chat: `init`, the reply added, one
 * `entryDelta` per part, the reply done.
 */
export function streamedReply(id: string, model: string, parts: readonly string[]): HostToWebview[] {
  const entry = streamingReply(id, model);
  return [
    initMessage(
      chatSnapshot([], chatOptions(model, 0.5, 100)),
      modelList([model], { compatible: model, native: model }),
    ),
    { type: 'entryAdded', entry },
    ...parts.map((p) => entryDelta(id, p)),
    { type: 'entryUpdated', entry: { ...entry, text: parts.join(''), status: 'done' } },
  ];
}

/** Whether the webview posted `ready`, read by the host's own validation of what the webview posts. */
export const isReady = (posted: unknown): boolean => parseWebviewMessage(posted)?.type === 'ready';

// ---------------------------------------------------------------------------------------------
// The chat view's host side (row 12)

/**
 * The chat view as the extension wires it, over `client` (a GatewayClient on the simulator): the chat
 * model gpt-4o-mini, `/image` by gpt-image-1, stored images as webview URIs. `onIdle` is called each
 * time a reply ended (the view posted `busy: false`).
 */
export function benchChatView(o: {
  client: GatewayClient;
  state: StateStore;
  files: ChatViewInit['files'];
  onIdle: () => void;
}): ChatView {
  const list = (): ModelList => modelList([], { compatible: 'gpt-4o-mini', native: 'claude-sonnet-4-5' });
  return new ChatView({
    backend: o.client,
    state: o.state,
    files: o.files,
    settings: () => ({
      defaultSurface: 'compatible',
      models: { chat: 'gpt-4o-mini', native: 'claude-sonnet-4-5' },
      temperature: 0.5,
      maxTokens: 1024,
      stream: true,
    }),
    models: sessionModels({ overrides: () => ({}), list }),
    modelList: list,
    image: {
      model: () => 'gpt-image-1',
      generate: async (prompt, signal) => {
        const r = await o.client.generateImage({ model: 'gpt-image-1', prompt, signal });
        const bytes = r.images[0]?.bytes;
        if (!bytes) throw new Error('the simulator generated no image');
        return { bytes, savedPath: `.model-relay/images/${prompt.slice(0, 40)}.png` };
      },
    },
    post: (msg) => {
      if (msg.type === 'busy' && !msg.busy) o.onIdle();
    },
    src: (file) => `${WEBVIEW_ORIGIN}/chat-images/${file}`,
  });
}

/** The user sends `text` from the chat view with the options the bench's chat uses. */
export function sendChat(view: ChatView, text: string): void {
  view.send(text, chatOptions('gpt-4o-mini', 0.5, 1024));
}

// ---------------------------------------------------------------------------------------------
// The Usage view (row 16)

const USAGE_MODELS = [
  'gpt-4o-mini',
  'gpt-4o',
  'claude-sonnet-4-5',
  'gpt-image-1',
  'o4-mini',
  'deepseek-chat',
  'qwen-max',
  'glm-4',
];

/** `n` usage-log records, one every 43 minutes back from `now`, across 8 models (every 97th an error). */
export function usageRecords(now: number, n: number): UsageRecord[] {
  return Array.from({ length: n }, (_, i) => ({
    time: now - i * 43 * 60_000,
    kind: i % 97 === 0 ? 'error' : 'consume',
    model: USAGE_MODELS[i % USAGE_MODELS.length]!,
    quota: 100 + i,
    cost: { amount: (100 + ((i * 37) % 900)) / 500_000, unit: 'USD' },
    promptTokens: 200 + ((i * 13) % 3000),
    completionTokens: 50 + ((i * 7) % 900),
    useTimeS: 1 + (i % 9),
    firstResponseMs: 200 + (i % 700),
    stream: i % 3 !== 0,
    tokenName: 'vscode',
    group: i % 5 ? 'default' : 'vip',
    requestId: `req-${i}`,
    requestPath: '/v1/chat/completions',
    other: undefined,
  }));
}

/**
 * The page's state for `n` records read from the gateway's log (half of them this installation's), built by the
 * host, each with its receipt (the Receipts column, its hover text, and the summary).
 */
export function usageViewState(now: number, n: number): UsageViewState {
  const records = usageRecords(now, n);
  return usageState({
    receiptOf: (r) => callReceipt(receiptOf(r, {})),
    records,
    source: 'log',
    ours: new Set(records.filter((_, i) => i % 2 === 0).map((r) => r.requestId!)),
    status: 'The gateway usage log, read at 12:00.',
    nextReadAt: now + 60_000,
    reading: false,
    now,
    utcOffsetMin: 0,
    lang: 'en',
  });
}

/** The host's message carrying the page's state. */
export function usageStateMessage(state: UsageViewState): UsageHostMessage {
  return { type: 'state', json: JSON.stringify(state) };
}

// ---------------------------------------------------------------------------------------------
// Receipts (row 19)

const RECEIPT_MODELS = [
  { id: 'gpt-4o-mini', ratio: 0.075, completion: 4 },
  { id: 'claude-sonnet-4-5', ratio: 1.5, completion: 5 },
  { id: 'deepseek-chat', ratio: 0.135, completion: 4 },
  { id: 'gpt-5.5', ratio: 2.5, completion: 6 },
];

/** The workload of a receipt batch: the gateway's 1000 newest records, the calls made from here, the price list. */
export interface ReceiptWorkload {
  records: UsageRecord[];
  calls: ReceiptCall[];
  ctx: ReceiptContext;
  maskedToken: string;
}

/**
 * `n` billed calls a second apart back from `now`, across 4 models, and the records an NA26 gateway wrote of
 * them (parsed as the usage log is: every 4th read from its cache, every 3rd streamed); `byId` false: the
 * records carry no request ids (an older gateway), so every call is matched by time, token and model.
 */
export function receiptWorkload(now: number, n: number, byId: boolean): ReceiptWorkload {
  const units: Units = {
    quotaPerUnit: 500_000,
    display: 'USD',
    usdExchangeRate: 7.3,
    customSymbol: '¤',
    customRate: 1,
  };
  const maskedToken = 'sk-Pr0d...Lk5d';
  const rows = Array.from({ length: n }, (_, i) => {
    const m = RECEIPT_MODELS[i % RECEIPT_MODELS.length]!;
    const prompt = 200 + ((i * 37) % 3000);
    const completion = 50 + ((i * 11) % 900);
    const cache = i % 4 === 0 ? 1024 : 0;
    const quota = Math.round((prompt - cache + cache * 0.5 + completion * m.completion) * m.ratio);
    const other = {
      model_ratio: m.ratio,
      completion_ratio: m.completion,
      group_ratio: 1,
      model_price: -1,
      cache_tokens: cache,
      cache_ratio: 0.5,
      user_group_ratio: -1,
      frt: 300,
      request_path: '/v1/chat/completions',
    };
    return {
      id: i + 1,
      created_at: Math.floor((now - i * 1000) / 1000),
      type: 2,
      model_name: m.id,
      quota,
      prompt_tokens: prompt,
      completion_tokens: completion,
      use_time: 2,
      is_stream: i % 3 === 0,
      token_name: 'vscode',
      group: 'default',
      ...(byId ? { request_id: `req-${i}` } : {}),
      other: JSON.stringify(other),
    };
  });
  const records = parseRecords(rows, units);
  const calls: ReceiptCall[] = rows.map((r, i) => ({
    time: new Date(r.created_at * 1000 - 1500).toISOString(),
    model: r.model_name,
    requestId: `req-${i}`,
    maskedToken,
    stream: r.is_stream,
    durationMs: 1400,
    surface: 'compatible',
    usage: { promptTokens: r.prompt_tokens, completionTokens: r.completion_tokens },
    localInput: { tokens: r.prompt_tokens, tokenizer: 'o200k_base' },
  }));
  const models = new Map<string, ModelPrice>(
    RECEIPT_MODELS.map((m) => [
      m.id,
      {
        model: m.id,
        groups: ['default'],
        unit: 'USD',
        dynamic: false,
        input: m.ratio * 2,
        output: m.ratio * 2 * m.completion,
        ratios: {
          modelPrice: undefined,
          modelRatio: m.ratio,
          completionRatio: m.completion,
          cacheRatio: 0.5,
          createCacheRatio: 1.25,
        },
      },
    ]),
  );
  return { records, calls, ctx: { prices: { readAt: now, groupRatios: { default: 1 }, models }, units }, maskedToken };
}

/** The receipts of a workload: their count, and how many checks were inconsistent (0 for this honest log). */
export function receiptBatch(w: ReceiptWorkload): { receipts: number; matched: number; inconsistent: number } {
  const r = reconcile(w.calls, w.records, w.ctx, { maskedToken: w.maskedToken });
  let inconsistent = 0;
  for (const x of r.receipts)
    for (const c of [...x.billing, ...x.route]) if (c.state === 'inconsistent') inconsistent++;
  return { receipts: r.receipts.length, matched: r.byCall.size, inconsistent };
}

// ---------------------------------------------------------------------------------------------
// Several gateways (rows 13, 15)

/** Gateways g1…gN at these base URLs, as the extension's set holds them; no retries (a figure never hides one). */
export function benchGateways(urls: readonly string[], token: (index: number) => string): GatewaySet {
  const profiles: GatewayProfile[] = urls.map((baseUrl, i) => ({ id: `g${i + 1}`, name: `Gateway ${i + 1}`, baseUrl }));
  return new GatewaySet(profiles, { token: (id) => token(Number(id.slice(1)) - 1), retry: { maxRetries: 0 } });
}

/** VS Code asking for the models of every gateway: the lists back within the bound, the late ones through `onLate`. */
export function listAcross(set: GatewaySet, onLate: (late: GatewayModelList) => void): Promise<GatewayModelList[]> {
  return listModelsAcross(set, { boundMs: LIST_ACROSS_BOUND_MS, onLate });
}

// ---------------------------------------------------------------------------------------------
// VS Code's chat through the language-model provider (rows 14, 15)

/** One of our models as VS Code hands it back with each request: its id, route and profile. */
export interface LmBenchModel {
  id: string;
  route: Route;
  profile: ModelProfile;
}

/** `model` on gateway `gateway`, on `surface`: 200k in, 8k out, tools and images. */
export function lmBenchModel(gateway: string, model: string, surface: Surface): LmBenchModel {
  return {
    id: lmModelId(gateway, model),
    route: { gateway, model },
    profile: {
      surface,
      surfaceLearnt: false,
      maxInputTokens: 200_000,
      maxOutputTokens: 8192,
      toolCalling: true,
      imageInput: true,
      thinkingBudget: undefined,
    },
  };
}

/** Agent mode's tool options (toolMode 1: auto). */
export function lmOptions(tools: LmOptions['tools']): LmOptions {
  return { tools, toolMode: 1 };
}

/**
 * provideLanguageModelChatResponse's steps (src/extension/lm/chatProvider.ts) from the converted
 * messages: the routes, the request, the stream across gateways drained.
 */
export async function provideResponse(
  set: GatewaySet,
  model: LmBenchModel,
  messages: readonly LmMessage[],
  options: LmOptions,
  thinking: ThinkingCache,
  signal: AbortSignal,
): Promise<void> {
  const routes = lmRoutes(model, set, model.route.gateway, {});
  const { model: _model, ...req } = lmToChatRequest(
    routes[0]?.model ?? model.id,
    model.profile,
    messages,
    options,
    thinking,
  );
  for await (const _e of withNotices(chatStreamAcross(set, routes, { ...req, signal }), req.maxTokens));
}

/** The wire body the provider's request carries (what JSON.stringify is timed on, as the floor). */
export function lmWireBody(
  model: LmBenchModel,
  messages: readonly LmMessage[],
  options: LmOptions,
  thinking: ThinkingCache,
): Record<string, unknown> {
  const req = lmToChatRequest(model.route.model, model.profile, messages, options, thinking);
  return surfaceAdapter(model.profile.surface).toRequest({ ...req, stream: true }, { maxTokens: 4096 });
}

/** provideTokenCount's body (src/extension/lm/chatProvider.ts); `toLmPart` is lmParts.ts's. */
export function provideTokenCount(
  counter: TokenCounter,
  toLmPart: (p: unknown) => LmPart,
  text: string | { content: readonly unknown[] },
): Promise<number> {
  return Promise.resolve(
    typeof text === 'string' ? counter.count(text) : counter.countParts(text.content.map(toLmPart)),
  );
}

// ---------------------------------------------------------------------------------------------
// Inline completions (row 17)

/** The settings of the keystroke replay: fill-in-the-middle with `model`, 1,024 tokens of context, no cost cap. */
export function completionSettings(model: string): CompletionSettings {
  return {
    enabled: true,
    model,
    contextTokens: 1024,
    maxTokens: 64,
    exclude: ['.env*', '*.pem', '*.key', 'id_rsa*', '**/.git/**'],
    maxFileSize: 1_000_000,
    maxCostPerHour: undefined,
    maxTokensPerHour: 0,
    trusted: true,
  };
}

/** A document being typed in, as the replay keeps it. */
export interface BenchDocument {
  id: string;
  relativePath: string;
  languageId: string;
  text: string;
  version: number;
}

/** What the glue hands the engine on a keystroke (its version read again before a suggestion is returned). */
export function documentSnapshot(d: BenchDocument): DocumentSnapshot {
  return {
    id: d.id,
    relativePath: d.relativePath,
    languageId: d.languageId,
    version: d.version,
    text: d.text,
    size: d.text.length,
    currentVersion: () => d.version,
  };
}

/** The engine as the extension wires it, on `settings`, with no price known. */
export function completionEngine(
  settings: CompletionSettings,
  deps: Pick<CompletionEngineDeps, 'client' | 'clock' | 'onState'>,
): CompletionEngine {
  return new CompletionEngine({ ...deps, settings: () => settings, price: () => undefined });
}

/** VS Code asking the engine on a keystroke (automatic trigger). */
export function provideSuggestion(
  engine: CompletionEngine,
  doc: DocumentSnapshot,
  offset: number,
  token: Parameters<CompletionEngine['provide']>[3],
): Promise<Suggestion | undefined> {
  return engine.provide(doc, offset, { trigger: 'automatic' }, token);
}

/** The naive provider's request: the engine's context windows at the cursor, nothing else. */
export function naiveCompletionRequest(
  settings: CompletionSettings,
  doc: DocumentSnapshot,
  offset: number,
): CompletionRequest {
  const w = contextWindows(doc.text, offset, settings.contextTokens);
  return {
    model: settings.model ?? '',
    prefix: w.prefix,
    suffix: w.suffix,
    languageId: doc.languageId,
    fileName: doc.relativePath,
    maxTokens: settings.maxTokens,
  };
}
