/**
 * The token's account as the gateway tells an sk- token: units, balance and expiry, prices and
 * groups. Cached, and gentle with the gateway: the token-usage endpoint allows about 20 requests
 * per 20 minutes per IP, so it is asked at most every few minutes (and never retried); a gateway
 * without these endpoints shows nothing and raises nothing.
 * What belongs to the gateway (its units, prices, missing routes, the back-off after a 429 — the
 * limit is per client IP) is kept until the base URL changes (`reset`); the balance belongs to the
 * token and is forgotten when another token is in use (`TokenScope`), and a read that started
 * before either change never writes its answer.
 * Only answers are kept: a route the gateway does not offer (404 and the like) is an answer, a read
 * that got none (the network, a timeout, a cancelled read, a 429 or 5xx) is not — it is asked again
 * after a short back-off (`ACCOUNT_RETRY`), and until then the last answer, however old, stands. (A
 * failed /api/status kept as "no units" for an hour showed a USD balance as raw quota, "1.9M tokens".)
 */
import { GatewayError, isGatewayError } from '../errors/gatewayError';
import { tokenRefusedError } from '../errors/factories';
import type { Transport } from '../http/transport';
import { parsePriceList, PRICING_PATH, type ModelPrice, type PriceList } from './pricing';
import {
  BILLING_USAGE_PATH,
  parseBilling,
  parseTokenUsage,
  quotaState,
  SUBSCRIPTION_PATH,
  TOKEN_USAGE_PATH,
  type Quota,
} from './quota';
import { CriticalBudget } from './criticalBudget';
import { SharedReads } from './sharedReads';
import type { TokenScope } from './tokenScope';
import { parseStatus, STATUS_PATH, type GatewayStatus } from './units';

const MINUTE = 60_000;
/** How long each answer is kept. */
export const ACCOUNT_TTL = {
  status: 60 * MINUTE,
  quota: 5 * MINUTE,
  pricing: 30 * MINUTE,
  missing: 30 * MINUTE,
};

/**
 * After a read of the status or the prices that got no answer, the next one waits `firstMs`, doubling
 * with each further failure up to `maxMs`: a blip is over in seconds, a gateway that does not answer is
 * not asked on every call.
 */
export const ACCOUNT_RETRY = { firstMs: 5_000, maxMs: 5 * MINUTE };

interface Cached<T> {
  at: number;
  value: T;
}

/**
 * One document the gateway publishes for everyone (its status, its prices): the last answer, and after a
 * read that got none, when it may be asked again.
 */
class Kept<T> {
  private answer: Cached<T> | undefined;
  private failed: { count: number; until: number; error: unknown } | undefined;

  constructor(
    private readonly now: () => number,
    private readonly ttl: number,
  ) {}

  /** The last answer while younger than the TTL. */
  fresh(): Cached<T> | undefined {
    return this.answer && this.now() - this.answer.at < this.ttl ? this.answer : undefined;
  }

  /** The last answer, however old (undefined: never answered). */
  get last(): Cached<T> | undefined {
    return this.answer;
  }

  /** Within the back-off after a failed read: the error to give meanwhile. */
  backingOff(): { error: unknown } | undefined {
    return this.failed && this.now() < this.failed.until ? this.failed : undefined;
  }

  answered(value: T): void {
    this.answer = { at: this.now(), value };
    this.failed = undefined;
  }

  /** A read got no answer. A read stopped because every caller left says nothing of the gateway: no back-off. */
  failedWith(error: unknown): void {
    if (isGatewayError(error) && error.kind === 'aborted') return;
    const count = (this.failed?.count ?? 0) + 1;
    const wait = Math.min(ACCOUNT_RETRY.firstMs * 2 ** (count - 1), ACCOUNT_RETRY.maxMs);
    this.failed = { count, until: this.now() + wait, error };
  }

  clear(): void {
    this.answer = this.failed = undefined;
  }
}

/** Statuses that mean "this gateway does not offer that" (or not to an sk- token): show nothing. */
const ABSENT = new Set([401, 403, 404, 405, 501]);

export class Account {
  private readonly statusDoc: Kept<GatewayStatus | undefined>;
  private quotaCache: Cached<Quota | undefined> | undefined;
  /** the price list (with the time it was read), its prices quoted for `group` */
  private readonly pricingDoc: Kept<{ list: PriceList | undefined; group: string | undefined }>;
  /** the token's effective group, when known (the usage log tells it): prices are quoted for it */
  tokenGroup: () => string | undefined = () => undefined;
  /** the token-usage route is missing (one-api, old new-api): go straight to the billing pair */
  private usageRouteMissingAt: number | undefined;
  /** moves on with every reset (another gateway): a read begun before it writes nothing */
  private epoch = 0;
  /** one read at a time per document (per gateway, and per token for the balance): concurrent callers share it */
  private readonly reads = new SharedReads();
  private explainedAt = -Infinity;

  constructor(
    private readonly transport: Transport,
    private readonly now: () => number,
    private readonly timeoutMs: () => number,
    private readonly scope: TokenScope,
    /** the critical rate limit's budget, shared with the usage log (one per gateway) */
    readonly critical: CriticalBudget = new CriticalBudget(now),
  ) {
    this.statusDoc = new Kept(now, ACCOUNT_TTL.status);
    this.pricingDoc = new Kept(now, ACCOUNT_TTL.pricing);
    scope.onForget(() => this.forgetToken());
  }

  /** Forget everything the gateway said (another base URL or backups). */
  reset(): void {
    this.epoch++;
    this.statusDoc.clear();
    this.pricingDoc.clear();
    this.usageRouteMissingAt = undefined;
    this.critical.reset();
    this.forgetToken();
  }

  /** Forget what belongs to the previous token: its balance. */
  private forgetToken(): void {
    this.quotaCache = undefined;
    this.explainedAt = -Infinity;
  }

  private fresh<T>(c: Cached<T> | undefined, ttl: number): c is Cached<T> {
    return !!c && this.now() - c.at < ttl;
  }

  private async get(path: string, signal?: AbortSignal): Promise<unknown> {
    const { data } = await this.transport.json({
      method: 'GET',
      path,
      surface: 'compatible',
      capability: 'account',
      timeoutMs: this.timeoutMs(),
      noRetry: true,
      signal,
    });
    return data;
  }

  /** GET that answers undefined where the gateway does not offer the route; other failures throw. */
  private async optional(path: string, signal?: AbortSignal): Promise<unknown> {
    try {
      return await this.get(path, signal);
    } catch (e) {
      if (isGatewayError(e) && ((e.status !== undefined && ABSENT.has(e.status)) || e.kind === 'protocol'))
        return undefined;
      throw e;
    }
  }

  /**
   * The gateway's units and what it offers (undefined where it has no status document). A read that got no
   * answer is not kept: the last answer stands (however old), and without one the error is thrown — never
   * "no units", which would show a USD balance as raw quota. Asked again after ACCOUNT_RETRY's back-off.
   */
  async status(signal?: AbortSignal): Promise<GatewayStatus | undefined> {
    const doc = this.statusDoc;
    const fresh = doc.fresh();
    if (fresh) return fresh.value;
    const waiting = doc.backingOff();
    if (waiting) {
      if (doc.last) return doc.last.value;
      throw waiting.error;
    }
    const epoch = this.epoch;
    return this.reads.run(
      `status@${epoch}`,
      async (shared) => {
        try {
          const value = parseStatus(await this.optional(STATUS_PATH, shared));
          if (epoch === this.epoch) doc.answered(value);
          return value;
        } catch (e) {
          if (epoch !== this.epoch) throw e;
          doc.failedWith(e);
          if (doc.last) return doc.last.value;
          throw e;
        }
      },
      signal,
    );
  }

  /** The last balance read, however old (undefined before the first). */
  get lastQuota(): Quota | undefined {
    return this.quotaCache?.value;
  }

  /**
   * What is left on the token. Served from the cache when it is younger than `maxAgeMs`; one read
   * at a time. A 429 keeps the last answer and pauses reads for a few minutes.
   */
  async quota(o: { maxAgeMs?: number; signal?: AbortSignal } = {}): Promise<Quota | undefined> {
    const gen = await this.scope.current();
    if (this.fresh(this.quotaCache, o.maxAgeMs ?? ACCOUNT_TTL.quota) || this.critical.paused())
      return this.quotaCache?.value;
    return this.reads.run(`quota#${gen}@${this.epoch}`, (shared) => this.readQuota(gen, shared), o.signal);
  }

  private async readQuota(gen: number, signal?: AbortSignal): Promise<Quota | undefined> {
    const epoch = this.epoch;
    // Without the status the raw quota has no unit: a failed status read fails the balance read (the last figure stays).
    const units = (await this.status(signal))?.units;
    try {
      const routeKnown =
        this.usageRouteMissingAt === undefined || this.now() - this.usageRouteMissingAt > ACCOUNT_TTL.missing;
      // The route shares the critical budget with the usage log: over it, the last answer stands.
      if (routeKnown && !this.critical.take('balance'))
        return this.scope.holds(gen) ? this.quotaCache?.value : undefined;
      const usage = routeKnown ? await this.usageRoute(epoch, signal) : 'missing';
      const value: Quota | undefined =
        usage === 'missing'
          ? await this.billing(units, signal)
          : (parseTokenUsage(usage.data, units) ?? (await this.billing(units, signal)));
      if (this.scope.holds(gen)) this.quotaCache = { at: this.now(), value };
      return value;
    } catch (e) {
      if (isGatewayError(e) && e.kind === 'rate_limited') {
        // The limit is per client IP: it holds for any token on this gateway.
        if (epoch === this.epoch) this.critical.limited();
        return this.scope.holds(gen) ? this.quotaCache?.value : undefined;
      }
      throw e;
    }
  }

  /** The token-usage route; a 401 here (the gateway does not know the token) is thrown as it is. */
  private async usageRoute(epoch: number, signal?: AbortSignal): Promise<{ data: unknown } | 'missing'> {
    try {
      return { data: await this.get(TOKEN_USAGE_PATH, signal) };
    } catch (e) {
      if (isGatewayError(e) && (e.status === 404 || e.status === 405 || e.kind === 'protocol')) {
        if (epoch === this.epoch) this.usageRouteMissingAt = this.now();
        return 'missing';
      }
      throw e;
    }
  }

  private async billing(units: GatewayStatus['units'] | undefined, signal?: AbortSignal): Promise<Quota | undefined> {
    const subscription = await this.optional(SUBSCRIPTION_PATH, signal);
    if (subscription === undefined) return undefined;
    return parseBilling(subscription, await this.optional(BILLING_USAGE_PATH, signal), units);
  }

  /**
   * Prices and groups per model; undefined where the gateway does not publish them (or needs a login). A
   * read that got no answer is not kept: the last answer for the token's group stands, else it throws.
   */
  async pricing(signal?: AbortSignal): Promise<Map<string, ModelPrice> | undefined> {
    return (await this.priceList(signal))?.models;
  }

  /**
   * The price list with the time it was read and the published ratios (what receipts compare with), as
   * `pricing` reads and keeps it: the same read, the same cache.
   */
  async priceList(signal?: AbortSignal): Promise<PriceList | undefined> {
    const group = this.tokenGroup();
    const doc = this.pricingDoc;
    const lastForGroup = () => (doc.last?.value.group === group ? doc.last : undefined);
    const fresh = doc.fresh();
    if (fresh && fresh.value.group === group) return fresh.value.list;
    const waiting = doc.backingOff();
    if (waiting) {
      const last = lastForGroup();
      if (last) return last.value.list;
      throw waiting.error;
    }
    const epoch = this.epoch;
    return this.reads.run(
      `pricing@${epoch}:${group ?? ''}`,
      async (shared) => {
        try {
          const status = await this.status(shared);
          let list: PriceList | undefined;
          if (status && status.pricing?.enabled !== false && !status.pricing?.requireAuth) {
            const json = await this.optional(PRICING_PATH, shared);
            list = parsePriceList(json, status.units, this.now(), group);
          }
          if (epoch === this.epoch) doc.answered({ list, group });
          return list;
        } catch (e) {
          if (epoch !== this.epoch) throw e;
          doc.failedWith(e);
          const last = lastForGroup();
          if (last) return last.value.list;
          throw e;
        }
      },
      signal,
    );
  }

  /**
   * A bare 401 ("Invalid token" — current new-api says nothing more, by design) explained from the
   * token-usage endpoint, which still answers for expired and exhausted tokens.
   */
  async explainRefusal(err: GatewayError, token: string | undefined): Promise<GatewayError> {
    if (err.status !== 401 || err.detail) return err;
    // A fresh read (a cached figure predates the refusal), except right after another explanation.
    const started = this.now();
    const q = await this.quota({ maxAgeMs: started - this.explainedAt < MINUTE ? MINUTE : 0 }).catch(() => undefined);
    this.explainedAt = started;
    if (!q || q.source !== 'usage-token' || (this.quotaCache?.at ?? -Infinity) < started - MINUTE) return err;
    const state = quotaState(q, this.now());
    const expiredOn = q.expiresAt?.slice(0, 10);
    if (state === 'expired') return tokenRefusedError(err, 'expired', { expiredOn, name: q.name }, token);
    if (state === 'exhausted') return tokenRefusedError(err, 'exhausted', { name: q.name }, token);
    // The gateway knows the token, it has not expired and has quota left, yet refuses it: disabled.
    return tokenRefusedError(err, 'disabled', { name: q.name }, token);
  }
}
