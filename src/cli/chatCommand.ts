/**
 * `relay-doctor chat`: one question, its answer on stdout as it streams (or whole with --no-stream),
 * and on stderr how it ended when it did not simply end — with its own exit code (output.ts
 * `chatEnding`). To the environment's gateway; or, with `--gateways FILE --gateway NAME`, to the named
 * gateway, moving to the file's fallbacks for its model as the extension does (chatStreamAcross /
 * chatAcross: only before any answer began, never with another gateway's token): a failover is one
 * line on stderr (gateway names, masked token, the reason), and the gateway and model that answered
 * are said on stderr at the end, so stdout holds only the reply.
 */
import type { Dispatcher } from 'undici';
import {
  GatewaySet,
  adjustmentWords,
  SURFACES,
  bundledCountText,
  chatAcross,
  chatStreamAcross,
  failoverReason,
  maskToken,
  redactSecrets,
  routesFor,
  type ChatRequest,
  type ChatResult,
  type FailoverEvent,
  type GatewayClient,
  type GatewayProfile,
  type RequestLogSink,
  type RequestRecord,
} from '../gateway';
import { chatEventBatches } from '../gateway/chat/stream';
import { t } from '../gateway/l10n';
import { BatchedWriter } from './batch';
import { UsageError, type CliConfig } from './config';
import { fileSecrets } from './diagnoseCommand';
import type { GatewaysFile } from './gatewaysFile';
import type { CliIo } from './main';
import { baseUrlWarnings, chatEnding, retryLine, surfaceMoveLine } from './output';
import { chatReceipt, isChatCall } from './receiptsCommand';

interface GatewayChatInput {
  file: GatewaysFile;
  primary: GatewayProfile;
  req: ChatRequest;
  stream: boolean;
  /** --receipt: after the answer, the receipt of the call from the gateway that answered */
  receipt: boolean;
}

/** `--max-tokens N`: a positive whole number, else a usage error. */
function maxTokensOf(values: Record<string, unknown>): number | undefined {
  const v = values['max-tokens'] as string | undefined;
  if (v === undefined) return undefined;
  const n = Number(v.trim());
  if (!Number.isInteger(n) || n < 1)
    throw new UsageError(t('--max-tokens must be a positive whole number, not "{0}".', v));
  return n;
}

/** The question from the options: surface, model (a gateway of a --gateways file brings its own), prompt, max tokens. */
function requestOf(cfg: CliConfig, values: Record<string, unknown>, positionals: string[]): ChatRequest {
  const given = (values.surface as string | undefined) ?? cfg.profile?.defaultSurface ?? 'compatible';
  const surface = SURFACES.find((s) => s === given);
  if (!surface) throw new UsageError(t('--surface must be "compatible", "native" or "responses", not "{0}".', given));
  const model =
    (values.model as string | undefined) ??
    (surface === 'native' ? cfg.profile?.models?.native : cfg.profile?.models?.chat);
  if (!model) throw new UsageError(t('chat needs --model M (see "relay-doctor models").'));
  const prompt = positionals.join(' ').trim();
  if (!prompt) throw new UsageError(t('chat needs a prompt, e.g. relay-doctor chat --model M "Hello"'));
  const maxTokens = maxTokensOf(values);
  return {
    surface,
    model,
    messages: [{ role: 'user' as const, content: prompt }],
    ...(maxTokens !== undefined ? { maxTokens } : {}),
  };
}

/** The output budget as sent: the asked one, or what the model's limits made of it (an adjustment says which). */
function sentMaxTokens(result: Pick<ChatResult, 'adjustments'> | undefined, req: ChatRequest): number | undefined {
  const set = result?.adjustments?.find(
    (a) => /^max_(output_|completion_)?tokens$/.test(a.param) && a.change === 'set',
  );
  return typeof set?.to === 'number' ? set.to : req.maxTokens;
}

/**
 * How the answer ended: a stderr line for each parameter not sent as asked (the model refuses it),
 * a line when it did not simply end; the exit code.
 */
function ended(
  result: Pick<ChatResult, 'finishReason' | 'adjustments'> | undefined,
  req: ChatRequest,
  io: CliIo,
): number {
  for (const text of new Set((result?.adjustments ?? []).map(adjustmentWords)))
    io.stderr.write(`relay-doctor: ${text}\n`);
  const end = chatEnding(result?.finishReason, sentMaxTokens(result, req));
  if (end.line) io.stderr.write(end.line);
  return end.code;
}

/** Runs `chat`; resolves to the exit code (errors are thrown). `client`: the environment's gateway, its requests heard. */
export async function chatCommand(
  target: { cfg: CliConfig; file?: GatewaysFile | undefined; client: (onRequest?: RequestLogSink) => GatewayClient },
  parsed: { values: Record<string, unknown>; positionals: string[] },
  io: CliIo,
  dispatcher: Dispatcher,
): Promise<number> {
  const { cfg, file } = target;
  const req = requestOf(cfg, parsed.values, parsed.positionals);
  const stream = parsed.values['no-stream'] !== true;
  const receipt = parsed.values.receipt === true;
  if (file && cfg.profile) {
    io.stderr.write(baseUrlWarnings(cfg.baseUrl, t('gateway "{0}"', cfg.profile.name)));
    return chatOverGateways({ file, primary: cfg.profile, req, stream, receipt }, io, dispatcher);
  }
  let call: RequestRecord | undefined;
  const client = target.client(receipt ? (r) => void (isChatCall(r) && (call = r)) : undefined);
  const code = await chatOnce(client, req, stream, io);
  if (receipt) {
    await client.recordsWritten(); // the call's record waits for the count of its input
    await chatReceipt(client, call, io);
  }
  return code;
}

/** One chat with one gateway: the answer on stdout (streamed, or whole), how it ended on stderr; the exit code. */
async function chatOnce(client: GatewayClient, req: ChatRequest, stream: boolean, io: CliIo): Promise<number> {
  if (!stream) {
    const r = await client.chat(req);
    io.stdout.write(`${r.text}\n`);
    return ended(r, req, io);
  }
  // Text goes out in 16 KB batches (and after a short pause), not one write per delta.
  const out = new BatchedWriter(io.stdout);
  let done: ChatResult | undefined;
  try {
    // A socket chunk's events at a time: one async step per chunk, not per delta.
    for await (const batch of chatEventBatches(client.chatStream(req)))
      for (const ev of batch)
        if (ev.type === 'text') out.write(ev.text);
        else if (ev.type === 'done') done = ev.result;
  } finally {
    out.flush(out.wrote ? '\n' : '');
  }
  return ended(done, req, io);
}

/** The one stderr line of a failover: from where to where, the token it used (masked), and why. */
function failoverLine(ev: FailoverEvent, file: GatewaysFile, io: CliIo): string {
  const envName = file.tokenEnv.get(ev.from.gateway);
  const masked = maskToken(envName ? io.env[envName] : undefined);
  const why = failoverReason(ev.error);
  const line = t(
    'gateway "{0}" ({1}, token {2}) could not serve the request: {3}. Trying "{4}" ({5}).',
    ev.from.gatewayName,
    ev.from.model,
    masked,
    why,
    ev.to.gatewayName,
    ev.to.model,
  );
  return `relay-doctor: ${redactSecrets(line, fileSecrets(file, io.env))}\n`;
}

function answeredLine(name: string, model: string): string {
  return `relay-doctor: ${t('answered by gateway "{0}" with {1}.', name, model)}\n`;
}

/** Runs the chat over the primary gateway and its fallbacks; resolves to the exit code (errors are thrown). */
async function chatOverGateways(c: GatewayChatInput, io: CliIo, dispatcher: Dispatcher): Promise<number> {
  const { file, primary, req } = c;
  // --receipt: each gateway's billed chat call (the request log names the gateway)
  const calls = new Map<string | undefined, RequestRecord>();
  const set = new GatewaySet(file.gateways, {
    ...(c.receipt
      ? {
          onRequest: (r: RequestRecord) => void (isChatCall(r) && calls.set(r.gateway, r)),
          countText: bundledCountText(),
        }
      : {}),
    token: (id) => {
      const name = file.tokenEnv.get(id);
      return (name && io.env[name]?.trim()) || undefined;
    },
    dispatcher,
    onRetry: (n) => void io.stderr.write(retryLine(n)),
    onSurfaceMove: (m) => void io.stderr.write(surfaceMoveLine(m)),
  });
  const routes = routesFor({ gateway: primary.id, model: req.model }, file.fallbacks, set);
  const { model: _model, ...rest } = req;
  const modelOf = (id: string | undefined) => routes.find((r) => r.gateway === id)?.model ?? req.model;
  // Who answered, how the answer ended, then (--receipt) its receipt from the gateway that answered.
  const answered = async (result: ChatResult) => {
    if (result.gateway) io.stderr.write(answeredLine(result.gateway.name, modelOf(result.gateway.id)));
    const code = ended(result, req, io);
    const client = result.gateway && set.get(result.gateway.id);
    if (c.receipt && client) {
      await client.recordsWritten(); // the call's record waits for the count of its input
      await chatReceipt(client, calls.get(result.gateway?.name), io);
    }
    return code;
  };
  if (!c.stream) {
    const { result, failovers } = await chatAcross(set, routes, rest);
    for (const f of failovers) io.stderr.write(failoverLine(f, file, io));
    io.stdout.write(`${result.text}\n`);
    return answered(result);
  }
  const out = new BatchedWriter(io.stdout);
  let done: ChatResult | undefined;
  try {
    // (chatStreamAcross hands on events one by one; the writer still batches the text)
    for await (const ev of chatStreamAcross(set, routes, rest)) {
      if (ev.type === 'text') out.write(ev.text);
      else if (ev.type === 'failover') io.stderr.write(failoverLine(ev, file, io));
      else if (ev.type === 'done') done = ev.result;
    }
  } finally {
    out.flush(out.wrote ? '\n' : '');
  }
  return done ? answered(done) : ended(undefined, req, io);
}
