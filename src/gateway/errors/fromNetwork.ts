/** Failures without an HTTP status: connection errors, timeouts and aborts, classified. */
import { GatewayError, type ErrorContext } from './gatewayError';

const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT', 'ERR_TLS_CERT_ALTNAME_INVALID', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'SELF_SIGNED_CERT_IN_CHAIN', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'CERT_HAS_EXPIRED']);

function errCode(e: unknown): string | undefined {
  let cur: unknown = e;
  for (let i = 0; i < 4 && cur && typeof cur === 'object'; i++) {
    const c = (cur as { code?: unknown }).code;
    if (typeof c === 'string') return c;
    cur = (cur as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Classifies a failure that has no HTTP status: connection errors, timeouts, aborts. */
export function errorFromNetwork(e: unknown, context: ErrorContext, opts: { timedOut?: boolean; aborted?: boolean; timeoutMs?: number } = {}): GatewayError {
  if (e instanceof GatewayError) return e;
  const host = (() => {
    try {
      return context.url ? new URL(context.url).host : 'the gateway';
    } catch {
      return 'the gateway';
    }
  })();
  if (opts.aborted) {
    return new GatewayError({ kind: 'aborted', message: 'The request was cancelled.', cause: 'The request was cancelled before it finished.', fix: 'Run it again when you want the result.', context, original: e });
  }
  if (opts.timedOut) {
    return new GatewayError({
      kind: 'timeout',
      message: `No answer from ${host} within ${Math.round((opts.timeoutMs ?? 0) / 1000)} s.`,
      cause: 'The gateway or a proxy did not answer in time (a slow upstream, a stalled stream, or a network problem).',
      fix: 'Try again; raise the timeout for this capability in the settings if large requests are expected, or check the network and proxy.',
      context,
      original: e,
    });
  }
  const code = errCode(e);
  const notSent = code !== undefined && NOT_SENT_CODES.has(code);
  const tls = code !== undefined && /CERT|TLS|SSL/.test(code);
  return new GatewayError({
    kind: 'network',
    message: `Could not reach ${host}${code ? ` (${code})` : ''}.`,
    cause: tls
      ? `The TLS certificate of ${host} was not accepted (${code}).`
      : code === 'ENOTFOUND' || code === 'EAI_AGAIN'
        ? `The host name ${host} could not be resolved (DNS).`
        : code === 'ECONNREFUSED'
          ? `Nothing accepts connections at ${host}.`
          : `The connection to ${host} failed or was reset (${code ?? (e instanceof Error ? e.message : 'unknown error')}).`,
    fix: tls
      ? 'Check the proxy or certificate settings (http.proxyStrictSSL), or the base URL scheme.'
      : 'Check the base URL, your network and proxy settings, or configure a backup domain.',
    context,
    original: e,
    notSent,
  });
}
