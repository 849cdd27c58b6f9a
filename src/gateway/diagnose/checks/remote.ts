/**
 * Reachability's words for two corporate-network situations: a loopback base URL while VS Code runs
 * remotely (SSH, a dev container, WSL, Codespaces — the extension then runs on the remote machine),
 * and which certificate authorities were trusted when a TLS certificate was refused.
 */
import { isIP } from 'node:net';
import { tlsProblem } from '../../errors/fromNetwork';
import type { GatewayError } from '../../errors/gatewayError';
import { describeTrust } from '../../http/trust';
import { t } from '../../l10n';
import type { DiagnosisContext, Reason } from '../context';

/** localhost, *.localhost, 127.0.0.0/8, ::1, 0.0.0.0. */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h.endsWith('.localhost') || h === '::1' || h === '0.0.0.0') return true;
  return isIP(h) === 4 && h.startsWith('127.');
}

/** Why a loopback base URL does not reach the user's computer when VS Code runs remotely (undefined otherwise). */
export function remoteLoopback(ctx: DiagnosisContext, base: string): Reason | undefined {
  const remote = ctx.input.remoteName;
  // code-server / serve-web opened on the same machine name themselves by their own loopback address.
  if (!remote || isLoopbackHost(remote.replace(/:\d+$/, ''))) return undefined;
  let u: URL;
  try {
    u = new URL(base);
  } catch {
    return undefined;
  }
  if (!isLoopbackHost(u.hostname)) return undefined;
  const port = u.port || (u.protocol === 'https:' ? '443' : '80');
  return {
    cause: t(
      'VS Code runs remotely ({0}): Model Relay runs on the remote machine, so {1} means the remote host, not your own computer.',
      remote,
      u.hostname,
    ),
    fix: t(
      'Use an address of the gateway that the remote machine can reach (in a dev container, host.docker.internal reaches your computer), or forward the port from your computer to the remote (e.g. ssh -R {0}:localhost:{0}).',
      port,
    ),
  };
}

/** One detail line saying which CAs were trusted, when `err` is a TLS certificate failure. */
export function trustDetail(ctx: DiagnosisContext, err: GatewayError | undefined): string | undefined {
  const problem = err && tlsProblem(err);
  if (!problem || problem === 'not_tls') return undefined;
  const s = describeTrust(ctx.input.proxy ?? { env: {} });
  const system =
    ctx.input.proxy?.systemCertificates === false
      ? t('the system store is not used (http.systemCertificates is off)')
      : s.systemSource
        ? t('{0} from the system store ({1})', s.system, s.systemSource)
        : t('no system store found');
  const extra = !s.extraFile
    ? t('NODE_EXTRA_CA_CERTS not set')
    : s.extraProblem
      ? t('NODE_EXTRA_CA_CERTS={0} unusable: {1}', s.extraFile, s.extraProblem)
      : t('{0} from NODE_EXTRA_CA_CERTS ({1})', s.extra, s.extraFile);
  return t("Trusted authorities: Node's bundled roots, {0}, {1}.", system, extra);
}
