/**
 * `relay-doctor chat --gateways FILE --gateway NAME`: the chat goes to the named gateway, and moves
 * to the file's fallbacks for its model as the extension does (chatStreamAcross / chatAcross: only
 * before any answer began, never with another gateway's token). A failover is one line on stderr
 * (gateway names, masked token, the reason); the gateway and model that answered, and how the answer
 * ended when it did not simply end, are said on stderr at the end, so stdout holds only the reply.
 */
import type { Dispatcher } from 'undici';
import {
  GatewaySet,
  chatAcross,
  chatStreamAcross,
  failoverReason,
  maskToken,
  redactSecrets,
  routesFor,
  type ChatRequest,
  type ChatResult,
  type FailoverEvent,
  type GatewayProfile,
} from '../gateway';
import { t } from '../gateway/l10n';
import { BatchedWriter } from './batch';
import { fileSecrets } from './gatewaysCommand';
import type { GatewaysFile } from './gatewaysFile';
import type { CliIo } from './main';
import { chatEnding, retryLine, surfaceMoveLine, terminalSafe } from './output';

export interface GatewayChatInput {
  file: GatewaysFile;
  primary: GatewayProfile;
  req: ChatRequest;
  stream: boolean;
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
  return terminalSafe(`relay-doctor: ${redactSecrets(line, fileSecrets(file, io.env))}\n`, io.stderr.isTTY);
}

function answeredLine(name: string, model: string, io: CliIo): string {
  return terminalSafe(`relay-doctor: ${t('answered by gateway "{0}" with {1}.', name, model)}\n`, io.stderr.isTTY);
}

/** Runs the chat over the primary gateway and its fallbacks; resolves to the exit code (errors are thrown). */
export async function chatOverGateways(c: GatewayChatInput, io: CliIo, dispatcher: Dispatcher): Promise<number> {
  const { file, primary, req } = c;
  const set = new GatewaySet(file.gateways, {
    token: (id) => {
      const name = file.tokenEnv.get(id);
      return (name && io.env[name]?.trim()) || undefined;
    },
    dispatcher,
    onRetry: (n) => void io.stderr.write(retryLine(n)),
    onSurfaceMove: (m) => void io.stderr.write(surfaceMoveLine(m, io.stderr.isTTY)),
  });
  const routes = routesFor({ gateway: primary.id, model: req.model }, file.fallbacks, set);
  const { model: _model, ...rest } = req;
  const safe = (s: string) => terminalSafe(s, io.stdout.isTTY);
  const modelOf = (id: string | undefined) => routes.find((r) => r.gateway === id)?.model ?? req.model;
  // Who answered, then how the answer ended (a line and its exit code when it did not simply end).
  const ended = (result: ChatResult) => {
    if (result.gateway) io.stderr.write(answeredLine(result.gateway.name, modelOf(result.gateway.id), io));
    const end = chatEnding(result.finishReason, req.maxTokens);
    if (end.line) io.stderr.write(end.line);
    return end.code;
  };
  if (!c.stream) {
    const { result, failovers } = await chatAcross(set, routes, rest);
    for (const f of failovers) io.stderr.write(failoverLine(f, file, io));
    io.stdout.write(safe(`${result.text}\n`));
    return ended(result);
  }
  const out = new BatchedWriter(io.stdout, safe);
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
  return done ? ended(done) : 0;
}
