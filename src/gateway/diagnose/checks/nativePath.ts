/** Check 6: the native surface's path — what a native client configured with the base URL as written would call. */
import { surfaceAdapter } from '../../chat/chat';
import { joinUrl, nativeMessagesUrl } from '../../endpoint';
import { isGatewayError } from '../../errors/gatewayError';
import { t } from '../../l10n';
import type { Check } from '../check';
import type { DiagnosisContext } from '../context';
import { outcomeFromError, type Outcome } from '../outcomeFromError';
import type { FixAction } from '../types';

const MESSAGES_PATH = surfaceAdapter('native').path;

/** The path the configured value carries beyond the root address (e.g. `/v1`), or ''. */
function extraPath(ctx: DiagnosisContext): string {
  try {
    const raw = ctx.input.baseUrl.trim();
    const u = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `https://${raw}`);
    const rawPath = u.pathname.replace(/\/+$/, '');
    const basePath = new URL(ctx.n.base!).pathname.replace(/\/+$/, '');
    return rawPath.startsWith(basePath) ? rawPath.slice(basePath.length) : '';
  } catch {
    return ''; // normalised already; nothing more to show
  }
}

/** The base URL carries a path: send to where a native client would, and report what came back. */
async function probeExtraPath(ctx: DiagnosisContext, extra: string, url: string, details: string[]): Promise<Outcome> {
  const base = ctx.n.base!;
  const rawUrl = `${base}${extra}${MESSAGES_PATH}`;
  const written = ctx.input.baseUrl.trim();
  const fix = t(
    'Set the base URL to the root address {0} (the native surface appends {1} itself; the compatible surface adds /v1).',
    base,
    MESSAGES_PATH,
  );
  const fixAction: FixAction = { kind: 'set-base-url', value: base };
  const b = ctx.blocked();
  if (b || !ctx.usedBase) {
    const cause = t(
      'With the base URL as written ("{0}"), a native client appends {1} and calls {2}, which the gateway answers with 404. This client strips {3} and calls {4}. (Not sent: {5})',
      written,
      MESSAGES_PATH,
      rawUrl,
      extra,
      url,
      b?.cause ?? t('no host works.'),
    );
    return { result: 'fail', url: rawUrl, cause, fix, details, fixAction };
  }
  const probeUrl = joinUrl(ctx.usedBase, `${extra}${MESSAGES_PATH}`);
  const model = ctx.models.native;
  try {
    const body = JSON.stringify({
      model: model ?? 'diagnosis-probe',
      max_tokens: 1,
      messages: [{ role: 'user', content: 'ping' }],
    });
    await ctx.client!.transport.json({
      method: 'POST',
      path: `${extra}${MESSAGES_PATH}`,
      surface: 'native',
      capability: 'chat',
      model,
      body,
      json: true,
      signal: ctx.signal,
      timeoutMs: ctx.requestMs,
    });
    const cause = t(
      'With the base URL as written ("{0}"), a native client appends {1} and calls {2}; this gateway happened to answer 200 there, but gateways normally answer 404 on that path and other native clients will fail.',
      written,
      MESSAGES_PATH,
      rawUrl,
    );
    return { result: 'warn', httpStatus: 200, url: probeUrl, maskedToken: ctx.masked, cause, fix, details, fixAction };
  } catch (e) {
    const o = isGatewayError(e) ? e : undefined;
    if (o) ctx.noteHtml(o);
    if (o?.kind === 'rate_limited' || o?.kind === 'aborted') return outcomeFromError(ctx, e);
    const status = o?.status;
    details.unshift(
      `POST ${probeUrl} → ${status !== undefined ? `HTTP ${status}` : (o?.kind ?? t('failed'))}${o?.gatewayMessage ? ` ("${o.gatewayMessage}")` : ''}`,
    );
    const answered = status !== undefined ? `HTTP ${status}` : (o?.message ?? t('an error'));
    const cause = t(
      'With the base URL as written ("{0}"), a native client appends {1} and calls {2} → {3}: the base URL carries {4}. This client strips it and calls {5}.',
      written,
      MESSAGES_PATH,
      rawUrl,
      answered,
      extra,
      url,
    );
    return {
      result: 'fail',
      httpStatus: status,
      url: probeUrl,
      maskedToken: ctx.masked,
      errorKind: o?.kind,
      cause,
      fix,
      details,
      fixAction,
    };
  }
}

function singleCause(url: string, answered200: boolean): string {
  return answered200
    ? t(
        'The native surface calls {0}: it ends in a single {1} and answered 200 in the generation check.',
        url,
        MESSAGES_PATH,
      )
    : t('The native surface calls {0}: it ends in a single {1}.', url, MESSAGES_PATH);
}

async function run(ctx: DiagnosisContext): Promise<Outcome> {
  const base = ctx.n.base!;
  const url = nativeMessagesUrl(base);
  const single = /(^|[^/])\/v1\/messages$/.test(new URL(url).pathname) && !/\/v1\/v1\//.test(url);
  const details = [
    t('The native surface calls {0}', url),
    ...ctx.backups.map((b, i) => t('Backup {0}: {1}', i + 1, nativeMessagesUrl(b))),
    t('The compatible surface calls {0}', `${base}${surfaceAdapter('compatible').path}`),
  ];
  const extra = extraPath(ctx);
  if (extra) return probeExtraPath(ctx, extra, url, details);
  const native = ctx.results.get('generate-native');
  if (
    native?.result === 'fail' &&
    native.httpStatus === 404 &&
    native.errorKind === 'not_found' &&
    !/model/i.test(native.cause)
  ) {
    return {
      result: 'fail',
      httpStatus: 404,
      url,
      cause: t("{0} answered 404: the base URL's path prefix is not where the gateway serves {1}.", url, MESSAGES_PATH),
      fix: t('Use the gateway root address exactly as the console shows it.'),
      details,
    };
  }
  return {
    result: single ? 'pass' : 'fail',
    url,
    ...(native?.result === 'pass' ? { httpStatus: 200 } : {}),
    cause: single
      ? singleCause(url, native?.result === 'pass')
      : t('The native surface would call {0}, which does not end in a single {1}.', url, MESSAGES_PATH),
    fix: single ? '' : t('Set the base URL to the gateway root address.'),
    details,
  };
}

export const nativePathCheck: Check = {
  id: 'native-path',
  skip: (ctx) => (ctx.n.base ? undefined : { cause: t('No usable base URL.'), fix: t('Fix the base URL first.') }),
  run,
};
