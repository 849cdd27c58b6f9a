/**
 * Failures without an HTTP status: connection errors, TLS (certificate) failures, timeouts and
 * aborts, classified — each with the cause and the fix in the user's terms.
 */
import { t } from '../l10n';
import { GatewayError, type ErrorContext } from './gatewayError';

const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_GET_ISSUER_CERT',
  'CERT_UNTRUSTED',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'ERR_SSL_WRONG_VERSION_NUMBER',
]);

/** What is wrong with a TLS connection, by the error code OpenSSL / Node give. */
export type TlsProblem = 'untrusted' | 'self_signed' | 'expired' | 'name' | 'not_tls' | 'other';

const TLS_PROBLEMS: Record<string, TlsProblem> = {
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'untrusted',
  UNABLE_TO_GET_ISSUER_CERT: 'untrusted',
  SELF_SIGNED_CERT_IN_CHAIN: 'untrusted',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'untrusted',
  CERT_UNTRUSTED: 'untrusted',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'self_signed',
  CERT_HAS_EXPIRED: 'expired',
  CERT_NOT_YET_VALID: 'expired',
  ERR_TLS_CERT_ALTNAME_INVALID: 'name',
  HOSTNAME_MISMATCH: 'name',
  ERR_SSL_WRONG_VERSION_NUMBER: 'not_tls',
  ERR_SSL_PACKET_LENGTH_TOO_LONG: 'not_tls',
};

/**
 * Whether a socket error says nothing of the request was written: undici's SocketError carries the
 * socket's byte counts, and a connection that failed with 0 bytes written never carried the request
 * (a reused keep-alive socket counts earlier requests too, so only a fresh one can prove it).
 */
function nothingWritten(e: unknown): boolean {
  let cur: unknown = e;
  for (let i = 0; i < 4 && cur && typeof cur === 'object'; i++) {
    const written = (cur as { socket?: { bytesWritten?: unknown } }).socket?.bytesWritten;
    if (typeof written === 'number') return written === 0;
    cur = (cur as { cause?: unknown }).cause;
  }
  return false;
}

/** Socket errors of a connection that was open: once the request was written, it may have arrived. */
const LOST_AFTER_SENDING = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);

function errCode(e: unknown): string | undefined {
  let cur: unknown = e;
  for (let i = 0; i < 4 && cur && typeof cur === 'object'; i++) {
    const c = (cur as { code?: unknown }).code;
    if (typeof c === 'string') return c;
    cur = (cur as { cause?: unknown }).cause;
  }
  return undefined;
}

/** The TLS problem behind an error code, or undefined when it is not a TLS failure. */
export function tlsProblemOf(code: string | undefined): TlsProblem | undefined {
  if (!code) return undefined;
  return TLS_PROBLEMS[code] ?? (/CERT|TLS|SSL/.test(code) ? 'other' : undefined);
}

const tlsProblems = new WeakMap<GatewayError, TlsProblem>();

/** The TLS problem of an error made here (a certificate is not fixed by trying again). */
export function tlsProblem(err: GatewayError): TlsProblem | undefined {
  return tlsProblems.get(err);
}

/** Cause and fix of a TLS failure; never "turn verification off". */
function tlsReason(problem: TlsProblem, host: string, code: string): { reason: string; fix: string } {
  switch (problem) {
    case 'untrusted':
      return {
        reason: t(
          'The certificate of {0} is signed by an authority this machine does not trust ({1}) — typical of a corporate TLS-inspecting proxy or an internal CA.',
          host,
          code,
        ),
        fix: t(
          "Install that CA certificate (your IT department has it) into the operating system's certificate store: Model Relay trusts the store while http.systemCertificates is on (the default), and so does relay-doctor; or point NODE_EXTRA_CA_CERTS at a PEM file holding it.",
        ),
      };
    case 'self_signed':
      return {
        reason: t('{0} presents a self-signed certificate ({1}) that this machine does not trust.', host, code),
        fix: t(
          "Ask the gateway's administrator for a certificate from a trusted authority, or, if you trust this one, install it into the operating system's certificate store (or point NODE_EXTRA_CA_CERTS at it).",
        ),
      };
    case 'expired':
      return {
        reason: t('The certificate of {0} has expired or is not valid yet ({1}).', host, code),
        fix: t("The gateway's administrator has to renew the certificate; also check this machine's date and time."),
      };
    case 'name':
      return {
        reason: t('The certificate of {0} is issued for another host name ({1}).', host, code),
        fix: t(
          'Use the host name the certificate is issued for in the base URL (an IP address or an alias is often not in it), or ask the administrator to add this name.',
        ),
      };
    case 'not_tls':
      return {
        reason: t(
          '{0} does not speak TLS on this port ({1}): the base URL says https:// but the server answers in plain HTTP.',
          host,
          code,
        ),
        fix: t(
          'Use http:// in the base URL if the gateway serves plain HTTP on this port, or the port that serves HTTPS.',
        ),
      };
    case 'other':
      return {
        reason: t('The TLS certificate of {0} was not accepted ({1}).', host, code),
        fix: t(
          "Check the base URL's scheme and port, and whether a proxy intercepts the connection; a corporate proxy's CA belongs in the operating system's certificate store.",
        ),
      };
  }
}

function connectionCause(code: string | undefined, host: string, e: unknown): string {
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return t('The host name {0} could not be resolved (DNS).', host);
  if (code === 'ECONNREFUSED') return t('Nothing accepts connections at {0}.', host);
  return t(
    'The connection to {0} failed or was reset ({1}).',
    host,
    code ?? (e instanceof Error ? e.message : t('unknown error')),
  );
}

/** Classifies a failure that has no HTTP status: connection errors, timeouts, aborts. */
export function errorFromNetwork(
  e: unknown,
  context: ErrorContext,
  opts: { timedOut?: boolean; aborted?: boolean; timeoutMs?: number } = {},
): GatewayError {
  if (e instanceof GatewayError) return e;
  const host = (() => {
    try {
      return context.url ? new URL(context.url).host : t('the gateway');
    } catch {
      return t('the gateway');
    }
  })();
  if (opts.aborted) {
    return new GatewayError({
      kind: 'aborted',
      message: t('The request was cancelled.'),
      reason: t('The request was cancelled before it finished.'),
      fix: t('Run it again when you want the result.'),
      context,
      cause: e,
    });
  }
  if (opts.timedOut) {
    return new GatewayError({
      kind: 'timeout',
      message: t('No answer from {0} within {1} s.', host, Math.round((opts.timeoutMs ?? 0) / 1000)),
      reason: t(
        'The gateway or a proxy did not answer in time (a slow upstream, a stalled stream, or a network problem).',
      ),
      fix: t(
        'Try again; raise the timeout for this capability in the settings if large requests are expected, or check the network and proxy.',
      ),
      context,
      cause: e,
    });
  }
  const code = errCode(e);
  const problem = tlsProblemOf(code);
  const reason = problem
    ? tlsReason(problem, host, code!)
    : {
        reason: connectionCause(code, host, e),
        fix: t('Check the base URL, your network and proxy settings, or configure a backup domain.'),
      };
  const notSent = (code !== undefined && NOT_SENT_CODES.has(code)) || nothingWritten(e);
  // A connection that broke once the request was on its way: the gateway may have it (and bill it).
  const lost = !notSent && !problem && code !== undefined && LOST_AFTER_SENDING.has(code);
  const err = new GatewayError({
    kind: 'network',
    message: lost
      ? t('The connection to {0} was lost after the request was sent ({1}).', host, code)
      : code
        ? t('Could not reach {0} ({1}).', host, code)
        : t('Could not reach {0}.', host),
    ...reason,
    context,
    cause: e,
    notSent,
  });
  if (problem) tlsProblems.set(err, problem);
  return err;
}
