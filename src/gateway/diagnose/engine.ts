/**
 * The diagnosis engine: runs the ordered checks of issue 5 against the gateway and returns a
 * structured report. Pure Node (no vscode). Never retries (maxRetries 0): a 429 is reported with
 * the wait it asks for and stops all further requests; a 5xx is reported as a temporary fault.
 * Every request has its own timeout and the whole run has a time budget.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Dispatcher } from 'undici';
import { GatewayClient } from '../client';
import { hostOf, joinUrl, nativeMessagesUrl, normalizeBaseUrl, type FindingCode } from '../endpoint';
import { GatewayError, isGatewayError } from '../errors/gatewayError';
import { maskToken } from '../mask';
import type { Capability, ModelInfo } from '../models';
import { createDispatcher, describeProxy, type ProxyChoice } from '../http/proxy';
import { DEFAULT_BURST } from '../http/sseStream';
import { DEFAULT_DIAGNOSIS_TIMEOUTS } from '../defaults';
import type { Surface } from '../errors/gatewayError';
import { inspectCliTool } from './cliToolSetup';
import { describeProbe, probeHost, type HostProbe } from './hostProbe';
import { CHECK_TITLES, type CheckId, type CheckResult, type DiagnosisCheck, type DiagnosisInput, type DiagnosisModels, type DiagnosisReport, type FixAction } from './types';


type Outcome = Omit<DiagnosisCheck, 'id' | 'title' | 'durationMs'> & { durationMs?: number };

interface HtmlSighting {
  url: string;
  status: number | undefined;
  message: string;
}

/** Words of a short reply streamed by check 7 (several chunks, so a burst can be recognised). */
const STREAM_PROMPT = 'Reply with exactly these words: one two three four five six';

/** A 1x1 PNG for the image-edit check. */
const TINY_PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

class Runner {
  readonly checks: DiagnosisCheck[] = [];
  /** set by a 429: no further request is sent */
  halt: { cause: string; fix: string } | undefined;

  constructor(
    private readonly now: () => number,
    private readonly input: DiagnosisInput,
  ) {}

  async run(id: CheckId, fn: () => Promise<Outcome> | Outcome): Promise<DiagnosisCheck> {
    const title = CHECK_TITLES[id];
    this.safe(() => this.input.onCheckStart?.(id, title));
    const started = this.now();
    let o: Outcome;
    try {
      o = await fn();
    } catch (e) {
      o = { result: 'fail', cause: `The check itself failed: ${e instanceof Error ? e.message : String(e)}`, fix: 'Report this with the diagnosis report.' };
    }
    const { durationMs, ...rest } = o;
    const check: DiagnosisCheck = { id, title, ...rest, durationMs: durationMs ?? Math.max(0, this.now() - started) };
    if (!check.details?.length) delete check.details;
    for (const k of Object.keys(check) as Array<keyof DiagnosisCheck>) if (check[k] === undefined) delete check[k];
    this.checks.push(check);
    this.safe(() => this.input.onProgress?.(check));
    return check;
  }

  skip(id: CheckId, cause: string, fix = ''): Promise<DiagnosisCheck> {
    return this.run(id, () => ({ result: 'skipped', cause, fix, durationMs: 0 }));
  }

  private safe(f: () => void): void {
    try {
      f();
    } catch {
      /* a broken progress callback must not break the diagnosis */
    }
  }
}

/** The endpoint rules' fixes describe what normalisation did; a diagnosis says what to change. */
const FINDING_FIX: Partial<Record<FindingCode, string>> = {
  whitespace: 'Remove the whitespace from the setting (this client ignores it, other tools may not).',
  'trailing-slash': 'Remove the trailing slash (this client ignores it, other tools may not).',
  'query-or-fragment': 'Remove the query string or fragment: the base URL is only scheme, host and optional path prefix.',
};

function tokenShapeProblems(t: string): string[] {
  const p: string[] = [];
  if (/^bearer\s+/i.test(t)) p.push('The stored token starts with "Bearer ": store only the key, the client adds "Bearer " itself (otherwise the header reads "Bearer Bearer sk-…" and the gateway answers 401).');
  else if (/^["'`]|["'`]$/.test(t)) p.push('The stored token is wrapped in quotes: copy only the key.');
  else if (/\s/.test(t)) p.push('The stored token contains a space or line break (copied with it).');
  else if (!/^sk-/.test(t)) p.push('The token does not start with sk- (gateway tokens do): it may be another kind of key or copied incompletely.');
  return p;
}

/** ` The gateway said: "…".` without doubled punctuation, or '' when it said nothing. */
function saidText(message: string | undefined): string {
  const m = message?.trim().replace(/[.\s]+$/, '');
  return m ? ` The gateway said: "${m}".` : '';
}

function waitText(ms: number | undefined): string {
  if (ms === undefined) return 'with exponential backoff (no Retry-After was given)';
  const s = Math.ceil(ms / 1000);
  return `${s} s (Retry-After)`;
}

function noProxyMatches(host: string, noProxy: string | undefined): boolean {
  if (!noProxy) return false;
  const [name, port] = (() => {
    const m = /^\[?([^\]]+?)\]?(?::(\d+))?$/.exec(host);
    return [m?.[1]?.toLowerCase() ?? host, m?.[2]];
  })();
  for (const raw of noProxy.split(/[,\s]+/)) {
    const entry = raw.trim().toLowerCase();
    if (!entry) continue;
    if (entry === '*') return true;
    const [eName, ePort] = entry.split(/:(?=\d+$)/) as [string, string | undefined];
    if (ePort && port && ePort !== port) continue;
    const bare = eName.replace(/^\*?\./, '');
    if (name === bare || name.endsWith(`.${bare}`)) return true;
  }
  return false;
}

/** Runs every check and returns the report. Never throws for gateway problems. */
export async function runDiagnosis(input: DiagnosisInput): Promise<DiagnosisReport> {
  const now = input.now ?? Date.now;
  const startedAt = now();
  const requestMs = input.timeouts?.requestMs ?? DEFAULT_DIAGNOSIS_TIMEOUTS.requestMs;
  const totalMs = input.timeouts?.totalMs ?? DEFAULT_DIAGNOSIS_TIMEOUTS.totalMs;
  const budget = new AbortController();
  const budgetTimer = setTimeout(() => budget.abort(new Error('diagnosis time budget exhausted')), totalMs);
  budgetTimer.unref?.();
  const signal = input.signal ? AbortSignal.any([input.signal, budget.signal]) : budget.signal;
  const token = input.token?.trim() || undefined;
  const masked = token ? maskToken(token) : undefined;
  const models: DiagnosisModels = Object.fromEntries(Object.entries(input.models ?? {}).map(([k, v]) => [k, typeof v === 'string' && v.trim() ? v.trim() : undefined]));
  const n = normalizeBaseUrl(input.baseUrl);
  const backupNorm = (input.backupUrls ?? []).map((u) => ({ input: u, n: normalizeBaseUrl(u) }));
  const backups = [...new Set(backupNorm.map((b) => b.n.base).filter((b): b is string => !!b && b !== n.base))];
  const proxyChoice: ProxyChoice | undefined = input.proxy ? describeProxy(input.proxy) : undefined;
  let ownedDispatcher: Dispatcher | undefined;
  // Always a dispatcher of our own (never undici's global one, which a host may have replaced).
  const dispatcher = input.dispatcher ?? (ownedDispatcher = createDispatcher(input.proxy ?? { env: {} }));
  const runner = new Runner(now, input);
  const html: HtmlSighting[] = [];
  const noteHtml = (e: GatewayError | undefined) => {
    if (e?.detail === 'html_page' && e.url && !html.some((h) => h.url === e.url)) html.push({ url: e.url, status: e.status, message: e.message });
  };
  const stopped = (): string | undefined => {
    if (input.signal?.aborted) return 'The diagnosis was cancelled.';
    if (budget.signal.aborted) return `The diagnosis ran out of its ${Math.round(totalMs / 1000)} s time budget.`;
    return undefined;
  };

  /** Turns a failed request into a check outcome, in the spec's terms. */
  const fromError = (e: unknown, o: { model?: string; listed?: boolean; streamNote?: string } = {}): Outcome => {
    if (!isGatewayError(e)) return { result: 'fail', cause: `Unexpected error: ${e instanceof Error ? e.message : String(e)}`, fix: 'Report this with the diagnosis report.' };
    noteHtml(e);
    const common = { httpStatus: e.status, url: e.url, errorKind: e.kind, requestId: e.requestId, maskedToken: e.maskedToken ?? masked, retryAfterMs: e.retryAfterMs };
    const said = saidText(e.gatewayMessage);
    const model = o.model ? `"${o.model}"` : 'the model';
    switch (e.kind) {
      case 'aborted':
        return { ...common, result: 'skipped', cause: stopped() ?? 'The request was cancelled.', fix: 'Run the diagnosis again.' };
      case 'rate_limited': {
        const wait = waitText(e.retryAfterMs);
        runner.halt ??= { cause: `The gateway answered 429 (rate limited) and asked to wait ${wait}; no further request was sent.`, fix: `Run the diagnosis again after ${wait}.` };
        return {
          ...common,
          result: 'fail',
          cause: `HTTP 429 rate limited: too many requests for this token or model.${said} The wait that applies: ${wait}. The diagnosis does not retry and sent no further requests.`,
          fix: `Wait ${wait} before trying again; lower concurrency and retry with exponential backoff (never in a loop without delay).`,
        };
      }
      case 'server_error':
        return {
          ...common,
          result: 'fail',
          cause: `HTTP ${e.status ?? '5xx'}: ${e.detail === 'html_page' ? `${e.message} ` : ''}a temporary service or upstream fault (5xx).${e.detail === 'html_page' ? '' : said}`,
          fix: `Retry with backoff after about 1 to 2 minutes${e.retryAfterMs !== undefined ? ` (the gateway asked for ${waitText(e.retryAfterMs)})` : ''}; if it persists, report it to the gateway operator${e.requestId ? ` with request id ${e.requestId}` : ''}, or use a backup domain.`,
        };
      case 'forbidden': {
        if (e.detail === 'insufficient_quota') return { ...common, result: 'fail', cause: `HTTP 403: ${e.cause}${said}`, fix: e.fix };
        const how = e.detail === 'model_not_found_503' ? '503 "model_not_found" (new-api\'s answer for a group/model mismatch: not a temporary fault)' : '403';
        if (o.listed) {
          return {
            ...common,
            result: 'fail',
            cause: `GET /v1/models lists ${model}, but the generation call answered ${how}: the token's group, the model id or the model's capability range does not allow this call (spec 7, rule 1). Listing a model does not prove generation works.${said}`,
            fix: `Use a token of a group that can use ${model} (switch token), or pick another model from this token's list; ask the gateway operator which group allows it.`,
            fixAction: { kind: 'switch-token' },
          };
        }
        return {
          ...common,
          result: 'fail',
          cause: `The generation call answered ${how}: ${model} is not usable with this token — its group cannot use the model${o.listed === false ? ' (it is not even in the token\'s model list)' : ''}, or the id is wrong.${said}`,
          fix: `Pick a model from this token's list (GET /v1/models), or switch to a token of a group that allows ${model}.`,
          fixAction: { kind: 'switch-token' },
        };
      }
      case 'unauthorized':
        return { ...common, result: 'fail', cause: `HTTP 401 invalid token: ${e.cause}${said}`, fix: e.fix, fixAction: token ? { kind: 'switch-token' } : { kind: 'add-token' } };
      case 'not_found': {
        const modelish = e.detail !== 'double_v1' && (e.gatewayCode === 'model_not_found' || /model/i.test(e.gatewayMessage ?? ''));
        if (modelish && o.model) {
          return {
            ...common,
            result: 'fail',
            cause: `The generation call answered 404 for ${model}: the model id does not exist, or this token's group cannot see it${o.listed === false ? ' (it is not in the token\'s model list)' : o.listed ? ' (although the model list shows it: the group, model id or capability range refuses it, spec 7 rule 1)' : ''}.${said}`,
            fix: `Copy the model id from this token's list (GET /v1/models), or switch to a token of a group that can use ${model}.`,
            fixAction: { kind: 'switch-token' },
          };
        }
        return {
          ...common,
          result: 'fail',
          cause: `HTTP 404: ${e.cause}${said}`,
          fix: e.fix,
          ...(e.detail === 'double_v1' && n.base ? { fixAction: { kind: 'set-base-url', value: n.base } as FixAction } : {}),
        };
      }
      case 'stream_interrupted':
      case 'timeout':
      case 'network':
      case 'protocol':
      case 'bad_request':
      case 'payload_too_large':
        return { ...common, result: 'fail', cause: `${e.message} ${e.cause}${o.streamNote ? ` ${o.streamNote}` : ''}`, fix: e.fix };
      default: {
        const _exhaustive: never = e.kind;
        return { ...common, result: 'fail', cause: `${String(_exhaustive)}: ${e.message}`, fix: e.fix };
      }
    }
  };

  try {
    // ---- 1. Base URL shape -------------------------------------------------------------------
    await runner.run('base-url', () => {
      const details: string[] = [`As configured: "${input.baseUrl}"`];
      if (!n.base) {
        const f = n.findings[0];
        return { result: 'fail', cause: f?.message ?? 'The base URL is not usable.', fix: f?.fix ?? 'Set the gateway root address.', details };
      }
      details.push(`Root address: ${n.base}`, `Compatible surface base: ${n.base}/v1 (calls ${n.base}/v1/chat/completions)`, `Native surface base: ${n.base} (calls ${nativeMessagesUrl(n.base)})`);
      const backupProblems: string[] = [];
      backupNorm.forEach((b, i) => {
        if (!b.n.base) backupProblems.push(`Backup ${i + 1} "${b.input}" is not usable: ${b.n.findings[0]?.message ?? 'invalid'}`);
        else {
          details.push(`Backup ${i + 1}: ${b.n.base}`);
          for (const f of b.n.findings) if (f.severity !== 'info') backupProblems.push(`Backup ${i + 1} "${b.input}": ${f.message}`);
        }
      });
      const findings = n.findings;
      if (!findings.length && !backupProblems.length) {
        return { result: 'pass', cause: `"${n.base}" is a root address: no trailing slash, no /v1, no endpoint path.`, fix: '', details };
      }
      const fixable = findings.some((f) => f.code !== 'http-public-host');
      return {
        result: 'warn',
        cause: [...findings.map((f) => f.message), ...backupProblems].join(' '),
        fix: [...findings.map((f) => FINDING_FIX[f.code] ?? f.fix), ...(backupProblems.length ? ['Give backup domains as root addresses too (same rules as the base URL).'] : [])].join(' '),
        details,
        ...(fixable ? { fixAction: { kind: 'set-base-url', value: n.base } as FixAction } : {}),
      };
    });

    // ---- 2. Reachability -----------------------------------------------------------------------
    const probes: HostProbe[] = [];
    let usedBase: string | undefined;
    const viaProxyFor = (base: string) => !!proxyChoice && proxyChoice.source !== 'none' && !noProxyMatches(hostOf(base), proxyChoice.noProxy);
    if (!n.base) {
      await runner.skip('reachability', 'No usable base URL, so no host was contacted.', 'Fix the base URL first.');
    } else {
      await runner.run('reachability', async () => {
        const bases = [n.base!, ...backups];
        const results = await Promise.all(
          bases.map((b) =>
            probeHost(b, { token, dispatcher, viaProxy: viaProxyFor(b), strictSSL: proxyChoice?.strictSSL ?? input.proxy?.strictSSL ?? true, timeoutMs: requestMs, now, signal, extraHeaders: input.extraHeaders }),
          ),
        );
        probes.push(...results);
        for (const p of results) noteHtml(p.error);
        const primary = results[0]!;
        const working = results.filter((p) => p.works);
        usedBase = working[0]?.base;
        const details = results.map((p, i) => describeProbe(p, i === 0 ? 'Primary' : `Backup ${i}`));
        const hostList = (ps: HostProbe[]) => ps.map((p) => p.host).join(', ');
        const base = { httpStatus: primary.status, url: primary.url, details, durationMs: undefined, maskedToken: masked };
        if (primary.outcome === 'aborted') return { ...base, result: 'skipped' as CheckResult, cause: stopped() ?? 'Cancelled.', fix: 'Run the diagnosis again.' };
        if (primary.works) {
          const broken = results.slice(1).filter((p) => !p.works);
          if (broken.length) {
            return {
              ...base,
              result: 'warn' as CheckResult,
              cause: `The primary ${primary.host} works (first byte in ${primary.firstByteMs} ms), but backup ${hostList(broken)} does not: ${broken.map((p) => p.error?.message ?? p.outcome).join(' ')} Failing over to it would not help.`,
              fix: 'Check the backup domain list against the gateway console (root addresses, same path rules).',
            };
          }
          return {
            ...base,
            result: 'pass' as CheckResult,
            cause: `${results.length > 1 ? `All ${results.length} hosts work` : `${primary.host} works`}: the API answered GET /v1/models (HTTP ${primary.status}, first byte in ${primary.firstByteMs} ms).`,
            fix: '',
          };
        }
        const why: { cause: string; fix: string; retryAfterMs?: number | undefined } =
          primary.viaProxy && (primary.outcome === 'network' || primary.outcome === 'timeout')
            ? { cause: `The request through the proxy ${proxyChoice?.display} failed (${primary.error?.message ?? primary.outcome}): the proxy is not reachable, or it could not connect to ${primary.host}.`, fix: `Check the proxy address and that it allows connections to ${primary.host}, or add the host to the no-proxy list.` }
            : primary.error
              ? fromError(primary.error)
              : { cause: `The primary ${primary.host} did not answer as the API.`, fix: 'Check the base URL.' };
        if (working.length) {
          const w = working[0]!;
          return {
            ...base,
            retryAfterMs: why.retryAfterMs,
            result: 'warn' as CheckResult,
            cause: `The primary ${primary.host} does not work: ${why.cause} The backup ${w.host} works (HTTP ${w.status}, first byte in ${w.firstByteMs} ms), so requests fail over to it; the rest of this diagnosis uses ${w.base}.`,
            fix: why.fix,
          };
        }
        if (primary.outcome === 'rate_limited') {
          runner.halt ??= { cause: `The gateway answered 429 and asked to wait ${waitText(primary.error?.retryAfterMs)}; no further request was sent.`, fix: `Run the diagnosis again after ${waitText(primary.error?.retryAfterMs)}.` };
        }
        return {
          ...base,
          errorKind: primary.error?.kind,
          requestId: primary.error?.requestId,
          retryAfterMs: primary.error?.retryAfterMs,
          result: 'fail' as CheckResult,
          cause: `${results.length > 1 ? 'No host works. ' : ''}${primary.host}: ${why.cause}`,
          fix: why.fix,
        };
      });
    }

    // The client every later check uses: the first host that works, no retries, short timeouts.
    const client = usedBase
      ? new GatewayClient({
          baseUrl: usedBase,
          token: () => token,
          dispatcher,
          extraHeaders: input.extraHeaders,
          retry: { maxRetries: 0 },
          timeouts: { chatMs: requestMs, streamIdleMs: requestMs, imageMs: Math.max(requestMs, 60_000), videoMs: requestMs },
          ...(input.sleep ? { sleep: input.sleep } : {}),
          now,
        })
      : undefined;
    let tokenRefused = false;
    /** why a network check cannot run, or undefined when it can */
    const blocked = (needsToken = true): { cause: string; fix: string } | undefined => {
      const s = stopped();
      if (s) return { cause: s, fix: 'Run the diagnosis again.' };
      if (runner.halt) return runner.halt;
      if (!n.base) return { cause: 'No usable base URL.', fix: 'Fix the base URL first.' };
      if (!client) return { cause: 'No host works, so nothing further could be tested.', fix: 'Fix reachability first (see above).' };
      if (needsToken && !token) return { cause: 'No token is set.', fix: 'Add a token first.' };
      if (needsToken && tokenRefused) return { cause: 'The token was refused (401), so this was not tested.', fix: 'Fix the token first.' };
      return undefined;
    };

    // ---- 3. Token ------------------------------------------------------------------------------
    let modelList: ModelInfo[] | undefined;
    const shape = token ? tokenShapeProblems(token) : [];
    if (!token) {
      await runner.run('token', () => ({
        result: 'fail',
        cause: 'No token is set: every request would be refused with 401.',
        fix: 'Copy a token from the gateway console (it starts with sk-) and add it ("Model Relay: Add Token", or MODEL_RELAY_TOKEN for relay-doctor).',
        fixAction: { kind: 'add-token' },
      }));
    } else if (blocked(false)) {
      const b = blocked(false)!;
      await runner.run('token', () => ({ result: 'skipped', cause: `${b.cause}${shape.length ? ` (Also: ${shape.join(' ')})` : ''}`, fix: b.fix, maskedToken: masked, durationMs: 0 }));
    } else {
      await runner.run('token', async () => {
        const url = joinUrl(usedBase!, '/v1/models');
        try {
          modelList = await client!.listModels(signal);
        } catch (e) {
          const o = fromError(e);
          if (isGatewayError(e) && e.kind === 'unauthorized') {
            tokenRefused = true;
            return { ...o, cause: `GET /v1/models answered 401: the token (${masked}) is missing, mistyped, disabled, or sent in the wrong header format.${shape.length ? ` ${shape.join(' ')}` : ''}${saidText(e.gatewayMessage)}`, fix: `${shape.length ? 'Store the bare key (sk-…). ' : ''}${e.fix}` };
          }
          return o;
        }
        const out: Outcome = { result: 'pass', httpStatus: 200, url, maskedToken: masked, cause: `The gateway accepted the token ${masked}${input.tokenName ? ` ("${input.tokenName}")` : ''}: GET /v1/models lists ${modelList.length} model${modelList.length === 1 ? '' : 's'}.`, fix: '', details: [`Visible models: ${modelList.map((m) => m.id).join(', ') || '(none)'}`] };
        if (shape.length) return { ...out, result: 'warn', cause: `${out.cause} But: ${shape.join(' ')}`, fix: 'Store the token as copied from the gateway console (sk-…), without prefixes or spaces.' };
        if (modelList.length === 0) return { ...out, result: 'warn', cause: `${out.cause} The token's group sees no model at all.`, fix: 'Ask the gateway operator which group the token should belong to, or use another token.', fixAction: { kind: 'switch-token' } };
        return out;
      });
    }
    const listed = (m: string | undefined): boolean | undefined => (m && modelList ? modelList.some((x) => x.id === m) : undefined);

    // ---- 4. Visibility -------------------------------------------------------------------------
    const wanted: Array<{ cap: Capability; key: keyof DiagnosisModels; label: string; model: string }> = [];
    const capLabel: Record<keyof DiagnosisModels, [Capability, string]> = { chat: ['chat', 'chat'], native: ['native', 'native'], image: ['image', 'image'], imageEdit: ['image-edit', 'image edit'], video: ['video', 'video'] };
    for (const key of Object.keys(capLabel) as Array<keyof DiagnosisModels>) {
      const m = models[key];
      if (m) wanted.push({ cap: capLabel[key][0], key, label: capLabel[key][1], model: m });
    }
    if (!wanted.length) {
      await runner.skip('visibility', 'No model is configured, so visibility, generation and streaming were not tested.', 'Set the models to check (modelRelay.models.*, or --chat-model / --native-model for relay-doctor).');
    } else if (!modelList) {
      const b = blocked();
      await runner.skip('visibility', b?.cause ?? 'The model list could not be read (see the token check).', b?.fix ?? 'Fix the token check first.');
    } else {
      await runner.run('visibility', () => {
        const ids = modelList!.map((m) => m.id);
        const missing: string[] = [];
        const wrongCap: string[] = [];
        const details: string[] = [];
        for (const w of wanted) {
          const info = modelList!.find((m) => m.id === w.model);
          if (!info) {
            const near = ids.filter((id) => id.toLowerCase() === w.model.toLowerCase() || id.toLowerCase().includes(w.model.toLowerCase()) || w.model.toLowerCase().includes(id.toLowerCase()));
            missing.push(`The ${w.label} model "${w.model}" is not in this token's model list: the token's group probably cannot see it (or the id is mistyped).${near.length ? ` Similar visible ids: ${near.join(', ')}.` : ''}`);
            details.push(`${w.label}: ${w.model} — not listed`);
          } else if (info.capabilities && !info.capabilities.includes(w.cap)) {
            wrongCap.push(`The ${w.label} model "${w.model}" is listed, but the gateway says it supports ${info.capabilities.join(', ') || 'nothing known'}, not ${w.label}: each capability needs a model of that capability (spec 4, rule 4).`);
            details.push(`${w.label}: ${w.model} — listed, capabilities ${info.capabilities.join(', ')}`);
          } else {
            details.push(`${w.label}: ${w.model} — listed${info.capabilities ? ` (${info.capabilities.join(', ')})` : ''}`);
          }
        }
        if (!missing.length && !wrongCap.length) {
          return { result: 'pass', maskedToken: masked, cause: `Every configured model is in the token's list (${wanted.map((w) => w.model).join(', ')}). Listing alone does not prove generation works: see the generation checks.`, fix: '', details };
        }
        return {
          result: 'fail',
          maskedToken: masked,
          cause: [...missing, ...wrongCap].join(' '),
          fix: missing.length ? `Pick models from this token's list (${ids.slice(0, 12).join(', ')}${ids.length > 12 ? ', …' : ''}), or switch to a token of a group that can see them.` : 'Choose a model of the right capability for each setting.',
          details,
          ...(missing.length ? { fixAction: { kind: 'switch-token' } as FixAction } : {}),
        };
      });
    }

    // ---- 5. A real generation call per configured capability ----------------------------------
    const generation = new Map<Surface, DiagnosisCheck>();
    for (const surface of ['compatible', 'native'] as const) {
      const id: CheckId = surface === 'compatible' ? 'generate-chat' : 'generate-native';
      const model = surface === 'compatible' ? models.chat : models.native;
      if (!model) {
        if (wanted.length) await runner.skip(id, `No ${surface === 'compatible' ? 'chat' : 'native'} model is configured.`, surface === 'compatible' ? 'Set modelRelay.models.chat (relay-doctor: --chat-model).' : 'Set modelRelay.models.native (relay-doctor: --native-model).');
        continue;
      }
      const b = blocked();
      if (b) {
        generation.set(surface, await runner.skip(id, b.cause, b.fix));
        continue;
      }
      const check = await runner.run(id, async () => {
        const url = joinUrl(usedBase!, surface === 'compatible' ? '/v1/chat/completions' : '/v1/messages');
        const started = now();
        try {
          const r = await client!.chat({ surface, model, messages: [{ role: 'user', content: 'ping' }], maxTokens: 1, signal });
          return {
            result: 'pass',
            httpStatus: 200,
            url,
            maskedToken: masked,
            cause: `POST ${url} with ${model} (max_tokens: 1) answered 200 with a reply in ${now() - started} ms: generation works on the ${surface} surface.`,
            fix: '',
            details: [`finish reason: ${r.finishReason ?? '-'}`, ...(r.requestId ? [`request id: ${r.requestId}`] : [])],
            requestId: r.requestId,
          };
        } catch (e) {
          return fromError(e, { model, listed: listed(model) });
        }
      });
      generation.set(surface, check);
    }

    if (input.includeMedia || models.image || models.imageEdit || models.video) {
      const media: Array<{ id: CheckId; model: string | undefined; label: string; setting: string }> = [
        { id: 'generate-image', model: models.image, label: 'image', setting: 'modelRelay.models.image' },
        { id: 'generate-image-edit', model: models.imageEdit, label: 'image-edit', setting: 'modelRelay.models.imageEdit' },
        { id: 'generate-video', model: models.video, label: 'video', setting: 'modelRelay.models.video' },
      ];
      for (const m of media) {
        if (!m.model) {
          await runner.skip(m.id, `No ${m.label} model is configured.`, `Set ${m.setting}.`);
          continue;
        }
        if (!input.includeMedia) {
          await runner.skip(m.id, `Not run: ${m.label} calls cost money, so they run only when asked for.`, 'Run the diagnosis with image and video checks included.');
          continue;
        }
        const b = blocked();
        if (b) {
          await runner.skip(m.id, b.cause, b.fix);
          continue;
        }
        await runner.run(m.id, async () => {
          const model = m.model!;
          try {
            if (m.id === 'generate-image') {
              const r = await client!.generateImage({ model, prompt: 'A small red square on a white background.', signal });
              return { result: 'pass', httpStatus: 200, url: joinUrl(usedBase!, '/v1/images/generations'), maskedToken: masked, cause: `Image generation with ${model} answered 200 with ${r.images.length} image(s) (${r.images[0]?.mime ?? '?'}).`, fix: '', requestId: r.requestId };
            }
            if (m.id === 'generate-image-edit') {
              const dir = await mkdtemp(join(tmpdir(), 'relay-diagnose-'));
              try {
                const file = join(dir, `probe-${randomBytes(4).toString('hex')}.png`);
                await writeFile(file, TINY_PNG);
                const r = await client!.editImage({ model, prompt: 'Make it blue.', imagePath: file, signal });
                return { result: 'pass', httpStatus: 200, url: joinUrl(usedBase!, '/v1/images/edits'), maskedToken: masked, cause: `Image editing with ${model} answered 200 with ${r.images.length} image(s).`, fix: '', requestId: r.requestId };
              } finally {
                await rm(dir, { recursive: true, force: true });
              }
            }
            const task = await client!.createVideo({ model, prompt: 'A short test clip: a red square.', seconds: 4, signal });
            return { result: 'pass', httpStatus: 200, url: joinUrl(usedBase!, '/v1/videos'), maskedToken: masked, cause: `The video task was created with ${model}: task ${task.id} (${task.rawStatus}). Check it in the Video Tasks view.`, fix: '' };
          } catch (e) {
            return fromError(e, { model, listed: listed(model) });
          }
        });
      }
    }

    // ---- 6. Native surface path ----------------------------------------------------------------
    if (!n.base) {
      await runner.skip('native-path', 'No usable base URL.', 'Fix the base URL first.');
    } else {
      await runner.run('native-path', async () => {
        const url = nativeMessagesUrl(n.base!);
        const single = /(^|[^/])\/v1\/messages$/.test(new URL(url).pathname) && !/\/v1\/v1\//.test(url);
        const details = [`The native surface calls ${url}`, ...backups.map((b, i) => `Backup ${i + 1}: ${nativeMessagesUrl(b)}`), `The compatible surface calls ${n.base}/v1/chat/completions`];
        // What a native client configured with the value as written would call.
        let extra = '';
        try {
          const raw = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(input.baseUrl.trim()) ? input.baseUrl.trim() : `https://${input.baseUrl.trim()}`);
          const rawPath = raw.pathname.replace(/\/+$/, '');
          const basePath = new URL(n.base!).pathname.replace(/\/+$/, '');
          if (rawPath.startsWith(basePath)) extra = rawPath.slice(basePath.length);
        } catch {
          /* normalised already; nothing more to show */
        }
        if (extra) {
          const rawUrl = `${n.base}${extra}/v1/messages`;
          const consequence = `With the base URL as written ("${input.baseUrl.trim()}"), a native client appends /v1/messages and calls ${rawUrl}`;
          const fixText = `Set the base URL to the root address ${n.base} (the native surface appends /v1/messages itself; the compatible surface adds /v1).`;
          const fixAction: FixAction = { kind: 'set-base-url', value: n.base! };
          const b = blocked();
          if (b || !usedBase) {
            return { result: 'fail', url: rawUrl, cause: `${consequence}, which the gateway answers with 404 (spec 4, rule 3). This client strips ${extra} and calls ${url}. (Not sent: ${b?.cause ?? 'no host works.'})`, fix: fixText, details, fixAction };
          }
          const probeUrl = joinUrl(usedBase, `${extra}/v1/messages`);
          try {
            await client!.transport.json({ method: 'POST', path: `${extra}/v1/messages`, surface: 'native', capability: 'chat', model: models.native, body: JSON.stringify({ model: models.native ?? 'diagnosis-probe', max_tokens: 1, messages: [{ role: 'user', content: 'ping' }] }), json: true, signal, timeoutMs: requestMs });
            return { result: 'warn', httpStatus: 200, url: probeUrl, maskedToken: masked, cause: `${consequence}; this gateway happened to answer 200 there, but per the spec that path is 404 and other native clients will fail.`, fix: fixText, details, fixAction };
          } catch (e) {
            const o = isGatewayError(e) ? e : undefined;
            if (o) noteHtml(o);
            if (o?.kind === 'rate_limited') return fromError(e);
            if (o?.kind === 'aborted') return fromError(e);
            const status = o?.status;
            details.unshift(`POST ${probeUrl} → ${status !== undefined ? `HTTP ${status}` : (o?.kind ?? 'failed')}${o?.gatewayMessage ? ` ("${o.gatewayMessage}")` : ''}`);
            return {
              result: 'fail',
              httpStatus: status,
              url: probeUrl,
              maskedToken: masked,
              errorKind: o?.kind,
              cause: `${consequence} → ${status === 404 ? 'HTTP 404' : status !== undefined ? `HTTP ${status}` : (o?.message ?? 'an error')}: the base URL carries ${extra} (spec 4, rule 3). This client strips it and calls ${url}.`,
              fix: fixText,
              details,
              fixAction,
            };
          }
        }
        const native = generation.get('native');
        if (native?.result === 'fail' && native.httpStatus === 404 && native.errorKind === 'not_found' && !/model/i.test(native.cause)) {
          return { result: 'fail', httpStatus: 404, url, cause: `${url} answered 404: the base URL's path prefix is not where the gateway serves /v1/messages.`, fix: 'Use the gateway root address exactly as the console shows it.', details };
        }
        return {
          result: single ? 'pass' : 'fail',
          url,
          ...(native?.result === 'pass' ? { httpStatus: 200 } : {}),
          cause: single ? `The native surface calls ${url}: it ends in a single /v1/messages${native?.result === 'pass' ? ' and answered 200 in the generation check' : ''}.` : `The native surface would call ${url}, which does not end in a single /v1/messages.`,
          fix: single ? '' : `Set the base URL to the gateway root address.`,
          details,
        };
      });
    }

    // ---- 7. Streaming --------------------------------------------------------------------------
    for (const surface of ['compatible', 'native'] as const) {
      const id: CheckId = surface === 'compatible' ? 'stream-compatible' : 'stream-native';
      const model = surface === 'compatible' ? models.chat : models.native;
      if (!model) {
        if (wanted.length) await runner.skip(id, `No ${surface === 'compatible' ? 'chat' : 'native'} model is configured.`, '');
        continue;
      }
      const gen = generation.get(surface);
      const b = blocked();
      if (b) {
        await runner.skip(id, b.cause, b.fix);
        continue;
      }
      if (gen?.result !== 'pass') {
        await runner.skip(id, 'The non-streamed call did not succeed, so streaming was not tested.', 'Fix the generation check first.');
        continue;
      }
      await runner.run(id, async () => {
        const url = joinUrl(usedBase!, surface === 'compatible' ? '/v1/chat/completions' : '/v1/messages');
        const started = now();
        let firstAt: number | undefined;
        let chunks = 0;
        try {
          for await (const ev of client!.chatStream({ surface, model, messages: [{ role: 'user', content: STREAM_PROMPT }], maxTokens: 24, signal })) {
            if (ev.type === 'text') {
              chunks++;
              firstAt ??= now() - started;
            }
            if (ev.type === 'done') {
              const r = ev.result;
              const timing = `${chunks} text chunk${chunks === 1 ? '' : 's'}, first after ${firstAt ?? '-'} ms, complete after ${r.durationMs} ms`;
              if (r.streamIgnored) {
                return { result: 'warn', httpStatus: 200, url, maskedToken: masked, cause: `A streamed request on the ${surface} surface was answered with one JSON body instead of an event stream: the gateway or a proxy ignores stream: true.`, fix: 'Nothing breaks, but replies will not appear progressively; check the proxy, or turn streaming off.', details: [timing], fixAction: { kind: 'disable-stream' } };
              }
              if (r.buffered) {
                return { result: 'warn', httpStatus: 200, url, maskedToken: masked, cause: `The stream on the ${surface} surface arrived in one burst (${timing}): a proxy between you and the gateway buffers responses (spec 6).`, fix: 'Turn streaming off (modelRelay.stream), or ask for the proxy to pass text/event-stream through unbuffered.', details: [timing], fixAction: { kind: 'disable-stream' } };
              }
              const judged = r.durationMs >= DEFAULT_BURST.minWaitMs;
              return {
                result: 'pass',
                httpStatus: 200,
                url,
                maskedToken: masked,
                cause: judged
                  ? `A short streamed reply on the ${surface} surface flowed progressively (${timing}).`
                  : `A short streamed reply on the ${surface} surface arrived complete, with its end marker (${timing}); it was too quick to tell flowing from buffered, and no burst after a wait was seen.`,
                fix: '',
                details: [timing],
              };
            }
          }
          return { result: 'fail', httpStatus: 200, url, cause: 'The stream ended without its end marker.', fix: 'Turn streaming off and check the proxy.', fixAction: { kind: 'disable-stream' } };
        } catch (e) {
          const note = `The same call without streaming works, so the stream is being broken on the way: typically a proxy that buffers or cuts streamed responses (spec 6)${chunks ? ` — ${chunks} chunk(s) arrived first` : ''}.`;
          const o = fromError(e, { model, listed: listed(model), streamNote: note });
          if (isGatewayError(e) && (e.kind === 'stream_interrupted' || e.kind === 'timeout' || e.kind === 'network' || e.kind === 'protocol')) return { ...o, fix: `Turn streaming off (modelRelay.stream) until the proxy is fixed. ${o.fix}`, fixAction: { kind: 'disable-stream' } };
          return o;
        }
      });
    }

    // ---- 8. Native command-line tool setup ------------------------------------------------------
    if (!input.cliTool) {
      await runner.skip('cli-tool', 'The native command-line tool setup was not inspected.', '');
    } else {
      await runner.run('cli-tool', async () => {
        const known = input.knownTokens?.length ? input.knownTokens : token ? [{ name: input.tokenName ?? 'active', value: token }] : [];
        const f = await inspectCliTool(input.cliTool!, { base: n.base, tokens: known });
        return { result: f.result, cause: f.cause, fix: f.fix, details: f.details, fixAction: f.fixAction, maskedToken: f.effective.token?.masked };
      });
    }

    // ---- 9. Wrong place ------------------------------------------------------------------------
    await runner.run('wrong-place', () => {
      if (!html.length) {
        const answered = probes.some((p) => p.status !== undefined);
        return answered
          ? { result: 'pass', cause: 'Every answer came from the API (JSON or an event stream), not from a web page.', fix: '' }
          : { result: 'skipped', cause: 'No HTTP answer was received, so this could not be judged.', fix: '' };
      }
      const first = html[0]!;
      const cdn = first.status !== undefined && first.status >= 500;
      return {
        result: 'fail',
        httpStatus: first.status,
        url: first.url,
        cause: cdn
          ? `An HTML error page (HTTP ${first.status}) answered at ${first.url}: a CDN or proxy in front of the gateway answered instead of the API.`
          : `An HTML page answered at ${first.url} (HTTP ${first.status ?? '?'}) where the API should answer: that is the gateway's web console or another web page, not its API.`,
        fix: cdn ? 'Retry after 1 to 2 minutes or use a backup domain; if it persists, report it to the gateway operator.' : 'Set the base URL to the API root address shown in the gateway console (e.g. https://gateway.example.com), not the console page or a path under it.',
        details: html.map((h) => `${h.url}: ${h.message}`),
      };
    });

    // ---- 10. Proxy -----------------------------------------------------------------------------
    await runner.run('proxy', () => {
      const primary = probes[0];
      if (!proxyChoice || proxyChoice.source === 'none') {
        const cause = input.dispatcher && !input.proxy ? 'Requests went through the caller\'s own connection settings (no proxy description was given).' : 'No proxy is configured (no proxy setting, no HTTPS_PROXY / HTTP_PROXY): requests go directly to the gateway.';
        return { result: 'pass', cause, fix: '' };
      }
      const where = proxyChoice.source === 'setting' ? 'the http.proxy setting' : 'the HTTPS_PROXY / HTTP_PROXY environment';
      const details = [`Proxy: ${proxyChoice.display} (from ${where})`, `No-proxy list: ${proxyChoice.noProxy ?? '(none)'}`, `Strict TLS: ${proxyChoice.strictSSL ? 'yes' : 'no (self-signed certificates accepted)'}`];
      if (!n.base || !primary) return { result: 'skipped', cause: `A proxy is in use (${proxyChoice.display}, from ${where}), but no host was contacted.`, fix: '', details };
      const bypassed = [n.base, ...backups].filter((b) => !viaProxyFor(b)).map(hostOf);
      if (bypassed.length) details.push(`Bypassing the proxy (no-proxy): ${bypassed.join(', ')}`);
      const through = probes.filter((p) => p.viaProxy);
      if (!through.length) return { result: 'pass', cause: `A proxy is configured (${proxyChoice.display}, from ${where}), but the gateway host is in the no-proxy list, so requests go directly.`, fix: '', details };
      const ok = through.filter((p) => p.works);
      if (ok.length) {
        return { result: 'pass', httpStatus: ok[0]!.status, cause: `Requests through the proxy ${proxyChoice.display} (from ${where}) reach the gateway: ${ok.map((p) => `${p.host} answered HTTP ${p.status} in ${p.firstByteMs} ms`).join('; ')}.`, fix: '', details };
      }
      const p = through[0]!;
      if (p.outcome === 'network' || p.outcome === 'timeout') {
        return {
          result: 'fail',
          url: p.url,
          errorKind: p.error?.kind,
          cause: `Requests through the proxy ${proxyChoice.display} (from ${where}) do not reach the gateway: ${p.error?.message ?? p.outcome} The proxy itself is not reachable, or it cannot connect to ${p.host}.`,
          fix: `Check the proxy address and that it allows connections to ${p.host}; or add the gateway host to the no-proxy list (http.noProxy / NO_PROXY) if it must be reached directly.`,
          details,
        };
      }
      return { result: 'warn', httpStatus: p.status, url: p.url, cause: `Requests pass through the proxy ${proxyChoice.display} (from ${where}) and get an answer (HTTP ${p.status ?? '?'}), but not a working API answer: see the reachability check.`, fix: 'If the answer is a proxy error page, check the proxy configuration.', details };
    });

    const summary: Record<CheckResult, number> = { pass: 0, warn: 0, fail: 0, skipped: 0 };
    for (const c of runner.checks) summary[c.result]++;
    return {
      startedAt: new Date(startedAt).toISOString(),
      durationMs: Math.max(0, now() - startedAt),
      baseUrl: input.baseUrl,
      base: n.base,
      backups,
      usedBase,
      maskedToken: masked,
      tokenName: input.tokenName,
      proxy: !proxyChoice || proxyChoice.source === 'none' ? 'none' : `${proxyChoice.display} (${proxyChoice.source})`,
      checks: runner.checks,
      summary,
      ok: summary.fail === 0,
    };
  } finally {
    clearTimeout(budgetTimer);
    if (ownedDispatcher) await ownedDispatcher.close().catch(() => undefined);
  }
}
