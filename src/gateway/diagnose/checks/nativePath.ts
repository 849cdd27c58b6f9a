/** Check 6: the native surface's path — what a native client configured with the base URL as written would call. */
import { surfaceAdapter } from '../../chat/chat';
import { joinUrl, nativeMessagesUrl } from '../../endpoint';
import { isGatewayError } from '../../errors/gatewayError';
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
  const consequence = `With the base URL as written ("${ctx.input.baseUrl.trim()}"), a native client appends ${MESSAGES_PATH} and calls ${rawUrl}`;
  const fix = `Set the base URL to the root address ${base} (the native surface appends ${MESSAGES_PATH} itself; the compatible surface adds /v1).`;
  const fixAction: FixAction = { kind: 'set-base-url', value: base };
  const b = ctx.blocked();
  if (b || !ctx.usedBase) {
    return { result: 'fail', url: rawUrl, cause: `${consequence}, which the gateway answers with 404 (spec 4, rule 3). This client strips ${extra} and calls ${url}. (Not sent: ${b?.cause ?? 'no host works.'})`, fix, details, fixAction };
  }
  const probeUrl = joinUrl(ctx.usedBase, `${extra}${MESSAGES_PATH}`);
  const model = ctx.models.native;
  try {
    const body = JSON.stringify({ model: model ?? 'diagnosis-probe', max_tokens: 1, messages: [{ role: 'user', content: 'ping' }] });
    await ctx.client!.transport.json({ method: 'POST', path: `${extra}${MESSAGES_PATH}`, surface: 'native', capability: 'chat', model, body, json: true, signal: ctx.signal, timeoutMs: ctx.requestMs });
    return { result: 'warn', httpStatus: 200, url: probeUrl, maskedToken: ctx.masked, cause: `${consequence}; this gateway happened to answer 200 there, but per the spec that path is 404 and other native clients will fail.`, fix, details, fixAction };
  } catch (e) {
    const o = isGatewayError(e) ? e : undefined;
    if (o) ctx.noteHtml(o);
    if (o?.kind === 'rate_limited' || o?.kind === 'aborted') return outcomeFromError(ctx, e);
    const status = o?.status;
    details.unshift(`POST ${probeUrl} → ${status !== undefined ? `HTTP ${status}` : (o?.kind ?? 'failed')}${o?.gatewayMessage ? ` ("${o.gatewayMessage}")` : ''}`);
    const answered = status === 404 ? 'HTTP 404' : status !== undefined ? `HTTP ${status}` : (o?.message ?? 'an error');
    return { result: 'fail', httpStatus: status, url: probeUrl, maskedToken: ctx.masked, errorKind: o?.kind, cause: `${consequence} → ${answered}: the base URL carries ${extra} (spec 4, rule 3). This client strips it and calls ${url}.`, fix, details, fixAction };
  }
}

async function run(ctx: DiagnosisContext): Promise<Outcome> {
  const base = ctx.n.base!;
  const url = nativeMessagesUrl(base);
  const single = /(^|[^/])\/v1\/messages$/.test(new URL(url).pathname) && !/\/v1\/v1\//.test(url);
  const details = [`The native surface calls ${url}`, ...ctx.backups.map((b, i) => `Backup ${i + 1}: ${nativeMessagesUrl(b)}`), `The compatible surface calls ${base}${surfaceAdapter('compatible').path}`];
  const extra = extraPath(ctx);
  if (extra) return probeExtraPath(ctx, extra, url, details);
  const native = ctx.results.get('generate-native');
  if (native?.result === 'fail' && native.httpStatus === 404 && native.errorKind === 'not_found' && !/model/i.test(native.cause)) {
    return { result: 'fail', httpStatus: 404, url, cause: `${url} answered 404: the base URL's path prefix is not where the gateway serves ${MESSAGES_PATH}.`, fix: 'Use the gateway root address exactly as the console shows it.', details };
  }
  return {
    result: single ? 'pass' : 'fail',
    url,
    ...(native?.result === 'pass' ? { httpStatus: 200 } : {}),
    cause: single ? `The native surface calls ${url}: it ends in a single ${MESSAGES_PATH}${native?.result === 'pass' ? ' and answered 200 in the generation check' : ''}.` : `The native surface would call ${url}, which does not end in a single ${MESSAGES_PATH}.`,
    fix: single ? '' : `Set the base URL to the gateway root address.`,
    details,
  };
}

export const nativePathCheck: Check = {
  id: 'native-path',
  skip: (ctx) => (ctx.n.base ? undefined : { cause: 'No usable base URL.', fix: 'Fix the base URL first.' }),
  run,
};
