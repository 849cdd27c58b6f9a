/**
 * A receipt for a billed call: the gateway's own usage-log record of it, reconciled with its formula, its
 * published price list, the response the client got and a local token count (shared/reference/
 * relay-receipts.md §2.6, §8). Every check is exactly one of three states — consistent, inconsistent, not
 * checkable (with its reason) — names its witness ("according to the gateway's log": the log is the
 * gateway's statement, not the upstream's) and shows its inputs. Billing findings (the charge, the price
 * list, tokens, input) are kept apart from the signals about the model's route (a recorded redirect, a
 * forward to another relay): a perfect receipt says nothing about which model ran. Nothing here says
 * "verified" or "genuine".
 * Pure: the caller brings the record (usageLog.ts), the price list read with its time (account.ts) and the
 * call as it was made (the request log); receiptMatch.ts pairs calls with records.
 */
import { t } from '../l10n';
import type { RequestRecord } from '../requestLog';
import {
  billedInput,
  CHARGE_TOLERANCE,
  FORMULA_TEXT,
  perCall,
  ratiosOf,
  recompute,
  reportedPrompt,
  tokensOf,
  type RecordRatios,
  type RecordTokens,
} from './chargeFormula';
import { FRAMING_TEXT, tokenizerOf } from './inputCount';
import type { PriceList, PublishedRatios } from './pricing';
import { formatAmount, type Units } from './units';
import type { UsageRecord } from './usageTypes';

export type CheckState = 'consistent' | 'inconsistent' | 'not-checkable';
export type BillingCheckId = 'arithmetic' | 'price-list' | 'tokens' | 'input';
export type RouteCheckId = 'redirect' | 'chain';
/** why a check could not be made */
export type NotCheckable =
  | 'dynamic'
  | 'no-ratios'
  | 'surcharges'
  | 'no-units'
  | 'no-price-list'
  | 'unlisted'
  | 'no-call'
  | 'no-usage'
  | 'per-call'
  | 'ambiguous'
  | 'no-local-count'
  | 'no-tokenizer'
  | 'predates';

/** What a check was computed from: gateway field names (and notation) with their values. */
export type CheckInputs = Record<string, string | number | boolean>;

export interface ReceiptCheck<Id extends string = BillingCheckId | RouteCheckId> {
  id: Id;
  state: CheckState;
  /** the sentence, naming its witness */
  text: string;
  reason?: NotCheckable | undefined;
  inputs: CheckInputs;
}

/** The call as it was made from here: its request-log record, with a local count of its input where one was made. */
export type ReceiptCall = Pick<
  RequestRecord,
  'time' | 'model' | 'requestId' | 'maskedToken' | 'stream' | 'durationMs' | 'surface' | 'usage' | 'localInput'
>;

export type ReceiptMatch =
  /** the record carries the call's X-Oneapi-Request-Id */
  | { by: 'request-id' }
  /**
   * by time, token and model (a log without request ids, §4): `candidates` records fitted; `tokensAgree`: the
   * record bills the tokens the response reported
   */
  | { by: 'time'; candidates: number; tokensAgree: boolean }
  /** a record no call made from here matches */
  | { by: 'none' };

export interface ReceiptContext {
  /** the price list as read at its time (undefined: the gateway does not publish one to this token) */
  prices?: PriceList | undefined;
  /** the gateway's units (its quota per unit recomputes a per-call charge) */
  units?: Units | undefined;
  /** how a time is written in sentences (default: `2026-06-01 14:02 UTC`) */
  formatTime?: ((ms: number) => string) | undefined;
}

export interface Receipt {
  record: UsageRecord;
  call: ReceiptCall | undefined;
  match: ReceiptMatch;
  /** "Matched by request id …", "Matched by time, token and model …" */
  matchText: string;
  /** the model the call asked for (undefined without a call) */
  requestedModel: string | undefined;
  /** the model the gateway billed (the record's model name) */
  billedModel: string;
  /** the model the gateway's record says it went to, where it recorded a redirect */
  upstreamModel: string | undefined;
  tokens: RecordTokens;
  /** in the gateway's quota and in its display currency ("$0.0123") */
  charge: { quota: number; amount: number; unit: string; text: string };
  group: string | undefined;
  ratios: RecordRatios;
  latency: { useTimeS: number; firstResponseMs: number | undefined; clientMs: number | undefined };
  /** the charge, the price list, tokens billed vs reported, input vs a local count */
  billing: Array<ReceiptCheck<BillingCheckId>>;
  /** what the record says of the model's route: a redirect, a forward to another relay */
  route: Array<ReceiptCheck<RouteCheckId>>;
}

/** Input tokens within ±5 % of a local count (at least 4 tokens) are consistent with it (§7.5). */
export const INPUT_TOLERANCE = { share: 0.05, minTokens: 4 };
/** Ratios are floats written by the same getters on both sides (§2.1): equal up to float noise. */
const RATIO_EPSILON = 1e-9;

const isoMinute = (ms: number) => `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
/** the price list's time as written, once per context (a batch shares one) while its list and format stay */
const written = new WeakMap<ReceiptContext, { list: PriceList | undefined; format: unknown; text: string }>();
function listedAtText(ctx: ReceiptContext): string {
  const kept = written.get(ctx);
  if (kept && kept.list === ctx.prices && kept.format === ctx.formatTime) return kept.text;
  const text = (ctx.formatTime ?? isoMinute)(ctx.prices?.readAt ?? 0);
  written.set(ctx, { list: ctx.prices, format: ctx.formatTime, text });
  return text;
}

/** A record with its tokens and ratios, read once for all its checks. */
interface Facts {
  r: UsageRecord;
  tk: RecordTokens;
  rt: RecordRatios;
}
/** a ratio as it reads: up to 6 significant digits */
const ratio = (r: number) => String(Number(r.toPrecision(6)));
const same = (a: number, b: number) => Math.abs(a - b) <= RATIO_EPSILON * Math.max(1, Math.abs(b));

/** "consistent", "inconsistent", "not checkable", translated. */
export function checkStateText(s: CheckState): string {
  return s === 'consistent' ? t('consistent') : s === 'inconsistent' ? t('inconsistent') : t('not checkable');
}

/**
 * One state for a set of checks (a receipt's billing, or its route): inconsistent when any check is,
 * consistent when none is and one at least is consistent, else not checkable.
 */
export function overallState(checks: readonly ReceiptCheck[]): CheckState {
  if (checks.some((c) => c.state === 'inconsistent')) return 'inconsistent';
  return checks.some((c) => c.state === 'consistent') ? 'consistent' : 'not-checkable';
}

/** The sentence every receipt carries (§8 rule 5). */
export function receiptDisclaimer(): string {
  return t(
    'No relay can currently prove which model served a request; providers do not sign responses or usage end to end.',
  );
}

// ---------------- the charge (R2) ----------------

function arithmeticCheck({ r, tk, rt }: Facts, ctx: ReceiptContext): ReceiptCheck<'arithmetic'> {
  const x = recompute(r, ctx.units?.quotaPerUnit, rt, tk);
  const inputs: CheckInputs = { quota: r.quota };
  if (x.state === 'not-recomputable') {
    const text =
      x.reason === 'dynamic'
        ? t('The charge could not be recomputed: the gateway priced this call by a dynamic expression.')
        : x.reason === 'surcharges'
          ? t(
              'The charge could not be recomputed: the record includes surcharges this client does not recompute ({0}).',
              x.detail ?? '',
            )
          : x.reason === 'no-units'
            ? t("The charge could not be recomputed: the gateway's quota per unit is not known.")
            : t('The charge could not be recomputed: the record does not carry the ratios the gateway applied.');
    return { id: 'arithmetic', state: 'not-checkable', reason: x.reason, text, inputs };
  }
  Object.assign(inputs, {
    expected: x.expected,
    tolerance: `±${CHARGE_TOLERANCE}`,
    formula: FORMULA_TEXT[x.formula],
    ...(x.formula === 'per-call'
      ? { model_price: rt.modelPrice ?? 0, quota_per_unit: ctx.units?.quotaPerUnit ?? 0 }
      : { P: tk.prompt, K: tk.completion, C: tk.cacheRead, W: tk.cacheWrite }),
    ...ratioInputs(rt),
  });
  const ok = Math.abs(x.expected - r.quota) <= CHARGE_TOLERANCE;
  const text = ok
    ? t(
        "According to the gateway's log, the charge of {0} quota matches its formula and the ratios it recorded (recomputed: {1}, ±1 for rounding).",
        r.quota,
        x.expected,
      )
    : t(
        "According to the gateway's log, the receipt's quota ({0}) does not match its own ratios (expected {1}, ±1 for rounding).",
        r.quota,
        x.expected,
      );
  return { id: 'arithmetic', state: ok ? 'consistent' : 'inconsistent', text, inputs };
}

/** The ratios a record says were applied, by the gateway's field names (a special user-group ratio only when set). */
export function ratioInputs(rt: RecordRatios): CheckInputs {
  const out: CheckInputs = {};
  const put = (k: string, v: number | undefined) => {
    if (v !== undefined) out[k] = v;
  };
  put('model_ratio', rt.model);
  put('completion_ratio', rt.completion);
  put('group_ratio', rt.group);
  put('cache_ratio', rt.cache);
  put('cache_creation_ratio', rt.cacheCreation);
  if (rt.userGroup !== undefined && rt.userGroup !== -1) out.user_group_ratio = rt.userGroup;
  return out;
}

// ---------------- the price list (R3) ----------------

type RatioPair = [name: string, recorded: number | undefined, listed: number];

/** The recorded ratios that differ from the published ones, as "model_ratio ×0.1125 (listed ×0.075)". */
function differences({ r, tk, rt }: Facts, listed: PublishedRatios): string[] {
  const billedPerCall = perCall(r);
  if (billedPerCall !== (listed.modelPrice !== undefined))
    return [billedPerCall ? t('billed per call, listed per token') : t('billed per token, listed per call')];
  const pairs: RatioPair[] = billedPerCall
    ? [['model_price', rt.modelPrice, listed.modelPrice!]]
    : [
        ['model_ratio', rt.model, listed.modelRatio],
        ['completion_ratio', rt.completion, listed.completionRatio],
      ];
  // the cache ratios matter where the record bills cached tokens
  if (!billedPerCall && tk.cacheRead > 0) pairs.push(['cache_ratio', rt.cache, listed.cacheRatio]);
  if (!billedPerCall && tk.cacheWrite > 0)
    pairs.push(['cache_creation_ratio', rt.cacheCreation, listed.createCacheRatio]);
  return pairs
    .filter(([, got, want]) => got !== undefined && !same(got, want))
    .map(([name, got, want]) => t('{0} ×{1} (listed ×{2})', name, ratio(got!), ratio(want)));
}

/** Why the record's ratios cannot be held against the price list (undefined: they can). */
function priceListUnavailable(
  { r, rt }: Facts,
  ctx: ReceiptContext,
  when: string,
): ReceiptCheck<'price-list'> | undefined {
  const none = (reason: NotCheckable, text: string, inputs: CheckInputs = {}): ReceiptCheck<'price-list'> => ({
    id: 'price-list',
    state: 'not-checkable',
    reason,
    text,
    inputs,
  });
  if (!ctx.prices)
    return none(
      'no-price-list',
      t('The price list could not be compared: the gateway does not publish one to this token.'),
    );
  const listedAt = { price_list_read_at: when };
  const price = ctx.prices.models.get(r.model);
  if (!price)
    return none(
      'unlisted',
      t("The price list could not be compared: {0} is not on the gateway's price list as of {1}.", r.model, when),
      listedAt,
    );
  if (price.dynamic || r.other?.billing_mode === 'tiered_expr' || !price.ratios)
    return none(
      'dynamic',
      t('The price list could not be compared: the gateway prices {0} by a dynamic expression.', r.model),
      listedAt,
    );
  if (rt.group === undefined || (rt.model === undefined && rt.modelPrice === undefined))
    return none(
      'no-ratios',
      t('The price list could not be compared: the record does not carry the ratios the gateway applied.'),
      listedAt,
    );
  return undefined;
}

function priceListCheck(f: Facts, ctx: ReceiptContext): ReceiptCheck<'price-list'> {
  const when = listedAtText(ctx);
  const unavailable = priceListUnavailable(f, ctx, when);
  if (unavailable) return unavailable;
  const { r, rt } = f;
  const listed = ctx.prices!.models.get(r.model)!.ratios!;
  const groupRatio = rt.group!;
  // NA24 records have no group (§1.1): the parser leaves it empty.
  const group = r.group || undefined;
  const published = group !== undefined ? ctx.prices!.groupRatios[group] : undefined;
  const special = rt.userGroup !== undefined && rt.userGroup !== -1;
  const privateGroup = special || (group !== undefined && published === undefined);
  const inputs: CheckInputs = {
    price_list_read_at: when,
    ...ratioInputs(rt),
    ...(listed.modelPrice !== undefined
      ? { listed_model_price: listed.modelPrice }
      : { listed_model_ratio: listed.modelRatio, listed_completion_ratio: listed.completionRatio }),
    ...(group !== undefined ? { group } : {}),
    ...(published !== undefined ? { listed_group_ratio: published } : {}),
  };
  const diffs = differences(f, listed);
  if (!privateGroup && published !== undefined && !same(groupRatio, published))
    diffs.push(t('{0} ×{1} (listed ×{2})', 'group_ratio', ratio(groupRatio), ratio(published)));
  if (diffs.length) {
    const text = t(
      "According to the gateway's log, the ratios applied differ from the price list as of {0}: {1}.",
      when,
      diffs.join('; '),
    );
    return { id: 'price-list', state: 'inconsistent', text, inputs };
  }
  // group_ratio is the effective one (a special user-group ratio included, §1.3).
  const text = privateGroup
    ? t(
        "According to the gateway's log, the model's ratios match the price list as of {0}; a group ratio ×{1} not shown on the public price list was applied.",
        when,
        ratio(groupRatio),
      )
    : group === undefined
      ? t(
          "According to the gateway's log, the model's ratios match the price list as of {0}; the record does not name its group.",
          when,
        )
      : t("According to the gateway's log, the ratios applied match the price list as of {0}.", when);
  return { id: 'price-list', state: 'consistent', text, inputs };
}

// ---------------- tokens billed vs reported (R4) and input vs a local count (R5) ----------------

/** Whether the pairing lets the record be held against this call (an ambiguous match by time does not). */
const attributable = (m: ReceiptMatch) =>
  m.by === 'request-id' || (m.by === 'time' && (m.tokensAgree || m.candidates === 1));

function tokensCheck({ r, tk }: Facts, call: ReceiptCall | undefined, m: ReceiptMatch): ReceiptCheck<'tokens'> {
  const none = (reason: NotCheckable, text: string): ReceiptCheck<'tokens'> => ({
    id: 'tokens',
    state: 'not-checkable',
    reason,
    text,
    inputs: { billed_prompt: tk.prompt, billed_completion: tk.completion },
  });
  if (!call)
    return none(
      'no-call',
      t('Billed and reported tokens could not be compared: no call made from here matches this record.'),
    );
  if (perCall(r))
    return none(
      'per-call',
      t('Billed and reported tokens could not be compared: the call was billed per call, not by tokens.'),
    );
  if (!call.usage)
    return none('no-usage', t('Billed and reported tokens could not be compared: the response reported no usage.'));
  if (!attributable(m))
    return none(
      'ambiguous',
      t(
        'Billed and reported tokens could not be compared: several records fit this call by time and none bills the tokens its response reported.',
      ),
    );
  const billedPrompt = reportedPrompt(tk, call.surface);
  const inputs: CheckInputs = {
    billed_prompt: billedPrompt,
    billed_completion: tk.completion,
    reported_prompt: call.usage.promptTokens,
    reported_completion: call.usage.completionTokens,
    usage_semantic: tk.semantic,
  };
  const equal = billedPrompt === call.usage.promptTokens && tk.completion === call.usage.completionTokens;
  const text = equal
    ? t(
        "According to the gateway's log, the billed tokens equal the tokens the gateway reported in its response ({0} in, {1} out).",
        billedPrompt,
        tk.completion,
      )
    : t(
        "According to the gateway's log, {0} input and {1} output tokens were billed; its response reported {2} and {3}.",
        billedPrompt,
        tk.completion,
        call.usage.promptTokens,
        call.usage.completionTokens,
      );
  return { id: 'tokens', state: equal ? 'consistent' : 'inconsistent', text, inputs };
}

function inputCheck({ r, tk }: Facts, call: ReceiptCall | undefined, m: ReceiptMatch): ReceiptCheck<'input'> {
  const billed = billedInput(tk);
  const none = (reason: NotCheckable, text: string): ReceiptCheck<'input'> => ({
    id: 'input',
    state: 'not-checkable',
    reason,
    text,
    inputs: { billed_input: billed },
  });
  if (!call)
    return none(
      'no-call',
      t('Input tokens could not be compared with a local count: no call made from here matches this record.'),
    );
  if (perCall(r))
    return none(
      'per-call',
      t('Input tokens could not be compared with a local count: the call was billed per call, not by tokens.'),
    );
  const local = call.localInput;
  if (!local && call.model && !tokenizerOf(call.model))
    return none(
      'no-tokenizer',
      t(
        "Input tokens could not be compared with a local count: this client has no tokenizer for {0} (it counts with o200k_base, the tokenizer of current OpenAI models; Anthropic does not publish Claude's).",
        call.model,
      ),
    );
  if (!local)
    return none(
      'no-local-count',
      t(
        'Input tokens could not be compared with a local count: none was made for this call (tool definitions, images, files and replayed reasoning are not recounted, nor an inline suggestion).',
      ),
    );
  if (!attributable(m))
    return none(
      'ambiguous',
      t('Input tokens could not be compared with a local count: several records fit this call by time.'),
    );
  const band = Math.max(INPUT_TOLERANCE.minTokens, Math.ceil(local.tokens * INPUT_TOLERANCE.share));
  const diff = billed - local.tokens;
  const inputs: CheckInputs = {
    billed_input: billed,
    local_count: local.tokens,
    tokenizer: local.tokenizer,
    framing: FRAMING_TEXT,
    tolerance: `±${band}`,
    tolerance_share: INPUT_TOLERANCE.share,
    ...(r.other?.is_system_prompt_overwritten === true ? { is_system_prompt_overwritten: true } : {}),
  };
  const text =
    Math.abs(diff) <= band
      ? t(
          "According to the gateway's log, the {0} input tokens billed are consistent with a local count of {1} (tokenizer {2}, ±{3} tokens).",
          billed,
          local.tokens,
          local.tokenizer,
          band,
        )
      : diff > 0
        ? t(
            "According to the gateway's log, about {0} more input tokens were billed than this client counted ({1}, tokenizer {2}, ±{3} tokens); causes include a provider system prompt, wrapping, or a different tokenizer.",
            diff,
            local.tokens,
            local.tokenizer,
            band,
          )
        : t(
            "According to the gateway's log, about {0} fewer input tokens were billed than this client counted ({1}, tokenizer {2}, ±{3} tokens); causes include a different tokenizer or a shortened context.",
            -diff,
            local.tokens,
            local.tokenizer,
            band,
          );
  return { id: 'input', state: Math.abs(diff) <= band ? 'consistent' : 'inconsistent', text, inputs };
}

// ---------------- the model's route (R8: disclosures) ----------------

/** Records since 2025-03-08 carry `cache_tokens` (and later fields): model redirects (2025-02-20) are recorded there. */
const recordsRedirects = (r: UsageRecord) =>
  !!r.requestId ||
  (r.other !== undefined &&
    ['cache_tokens', 'is_model_mapped', 'user_group_ratio', 'usage_semantic', 'request_path'].some(
      (k) => k in r.other!,
    ));

function redirectCheck(r: UsageRecord): ReceiptCheck<'redirect'> {
  const upstream = r.other?.upstream_model_name;
  if (r.other?.is_model_mapped === true)
    return {
      id: 'redirect',
      state: 'inconsistent',
      text: t(
        "According to the gateway's log, this call went to {0} (billed as {1}).",
        typeof upstream === 'string' ? upstream : '?',
        r.model,
      ),
      inputs: {
        model_name: r.model,
        is_model_mapped: true,
        upstream_model_name: typeof upstream === 'string' ? upstream : '',
      },
    };
  if (!recordsRedirects(r))
    return {
      id: 'redirect',
      state: 'not-checkable',
      reason: 'predates',
      text: t(
        "Model redirects could not be checked: this gateway's log is older than its redirect records (February 2025).",
      ),
      inputs: { model_name: r.model },
    };
  return {
    id: 'redirect',
    state: 'consistent',
    text: t(
      "According to the gateway's log, no model redirect was recorded; this does not show which model served the call.",
    ),
    inputs: { model_name: r.model, is_model_mapped: false },
  };
}

function chainCheck(r: UsageRecord): ReceiptCheck<'chain'> {
  if (r.upstreamRequestId)
    return {
      id: 'chain',
      state: 'inconsistent',
      text: t(
        "According to the gateway's log, it forwarded this call to another one-api/new-api relay (upstream request {0}).",
        r.upstreamRequestId,
      ),
      inputs: { upstream_request_id: r.upstreamRequestId },
    };
  // request_id (2026-02-04) comes before upstream_request_id (2026-05-12): the absence says little before May.
  if (!r.requestId)
    return {
      id: 'chain',
      state: 'not-checkable',
      reason: 'predates',
      text: t(
        "Forwards to other relays could not be checked: this gateway's log is older than its forward records (May 2026).",
      ),
      inputs: {},
    };
  return {
    id: 'chain',
    state: 'consistent',
    text: t(
      "According to the gateway's log, no forward to another relay was recorded; gateways older than May 2026 do not record forwards.",
    ),
    inputs: { request_id: r.requestId },
  };
}

// ---------------- the receipt ----------------

function matchText(r: UsageRecord, m: ReceiptMatch): string {
  if (m.by === 'request-id') return t('Gateway receipt {0}, matched by request id.', r.requestId ?? '');
  if (m.by === 'none') return t('No call made from here matches this record.');
  return m.candidates > 1
    ? t('Matched by time, token and model ({0} records fit).', m.candidates)
    : t('Matched by time, token and model.');
}

/** The receipt of one record, with the call it was matched to (none: the record alone). */
export function receiptOf(
  record: UsageRecord,
  ctx: ReceiptContext,
  call?: ReceiptCall,
  match: ReceiptMatch = { by: 'none' },
): Receipt {
  const upstream = record.other?.upstream_model_name;
  const m: ReceiptMatch = call ? match : { by: 'none' };
  const f: Facts = { r: record, tk: tokensOf(record), rt: ratiosOf(record) };
  return {
    record,
    call,
    match: m,
    matchText: matchText(record, m),
    requestedModel: call?.model,
    billedModel: record.model,
    upstreamModel: record.other?.is_model_mapped === true && typeof upstream === 'string' ? upstream : undefined,
    tokens: f.tk,
    charge: { quota: record.quota, ...record.cost, text: formatAmount(record.cost.amount, record.cost.unit) },
    group: record.group || undefined,
    ratios: f.rt,
    latency: { useTimeS: record.useTimeS, firstResponseMs: record.firstResponseMs, clientMs: call?.durationMs },
    billing: [arithmeticCheck(f, ctx), priceListCheck(f, ctx), tokensCheck(f, call, m), inputCheck(f, call, m)],
    route: [redirectCheck(record), chainCheck(record)],
  };
}
