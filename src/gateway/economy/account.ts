/**
 * The token's account as the gateway tells an sk- token: units, balance and expiry, prices and
 * groups. Cached, and gentle with the gateway: the token-usage endpoint allows about 20 requests
 * per 20 minutes per IP, so it is asked at most every few minutes (and never retried); a gateway
 * without these endpoints shows nothing and raises nothing.
 * What belongs to the gateway (its units, prices, missing routes, the back-off after a 429 — the
 * limit is per client IP) is kept until the base URL changes (`reset`); the balance belongs to the
 * token and is forgotten when another token is in use (`TokenScope`), and a read that started
 * before either change never writes its answer.
 */
import { GatewayError, isGatewayError } from '../errors/gatewayError';
import { tokenRefusedError } from '../errors/factories';
import type { Transport } from '../http/transport';
import { parsePricing, PRICING_PATH, type ModelPrice } from './pricing';
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

interface Cached<T> {
  at: number;
  value: T;
}

/** Statuses that mean "this gateway does not offer that" (or not to an sk- token): show nothing. */
const ABSENT = new Set([401, 403, 404, 405, 501]);

export class Account {
  private statusCache: Cached<GatewayStatus | undefined> | undefined;
  private quotaCache: Cached<Quota | undefined> | undefined;
  private pricingCache: Cached<Map<string, ModelPrice> | undefined> | undefined;
  /** the token-usage route is missing (one-api, old new-api): go straight to the billing pair */
  private usageRouteMissingAt: number | undefined;
  /** moves on with every reset (another gateway): a read begun before it writes nothing */
  private epoch = 0;
  /** one read at a time per document (per gateway, and per token for the balance): concurrent callers share it */
  private readonly inflight = new Map<string, Promise<unknown>>();
  private explainedAt = -Infinity;

  constructor(
    private readonly transport: Transport,
    private readonly now: () => number,
    private readonly timeoutMs: () => number,
    private readonly scope: TokenScope,
    /** the critical rate limit's budget, shared with the usage log (one per gateway) */
    readonly critical: CriticalBudget = new CriticalBudget(now),
  ) {
    scope.onForget(() => this.forgetToken());
  }

  /** Forget everything the gateway said (another base URL or backups). */
  reset(): void {
    this.epoch++;
    this.statusCache = this.pricingCache = undefined;
    this.usageRouteMissingAt = undefined;
    this.critical.reset();
    this.forgetToken();
  }

  /** Forget what belongs to the previous token: its balance. */
  private forgetToken(): void {
    this.quotaCache = undefined;
    this.explainedAt = -Infinity;
  }

  private shared<T>(key: string, read: () => Promise<T>): Promise<T> {
    let p = this.inflight.get(key) as Promise<T> | undefined;
    if (!p) {
      const mine: Promise<T> = read().finally(() => {
        if (this.inflight.get(key) === mine) this.inflight.delete(key);
      });
      this.inflight.set(key, mine);
      p = mine;
    }
    return p;
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

  async status(signal?: AbortSignal): Promise<GatewayStatus | undefined> {
    if (this.fresh(this.statusCache, ACCOUNT_TTL.status)) return this.statusCache.value;
    const epoch = this.epoch;
    return this.shared(`status@${epoch}`, async () => {
      const value = parseStatus(await this.optional(STATUS_PATH, signal).catch(() => undefined));
      if (epoch === this.epoch) this.statusCache = { at: this.now(), value };
      return value;
    });
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
    return this.shared(`quota#${gen}@${this.epoch}`, () => this.readQuota(gen, o.signal));
  }

  private async readQuota(gen: number, signal?: AbortSignal): Promise<Quota | undefined> {
    const epoch = this.epoch;
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

  /** Prices and groups per model; undefined where the gateway does not publish them (or needs a login). */
  async pricing(signal?: AbortSignal): Promise<Map<string, ModelPrice> | undefined> {
    if (this.fresh(this.pricingCache, ACCOUNT_TTL.pricing)) return this.pricingCache.value;
    const epoch = this.epoch;
    return this.shared(`pricing@${epoch}`, async () => {
      const status = await this.status(signal);
      let value: Map<string, ModelPrice> | undefined;
      if (status && status.pricing?.enabled !== false && !status.pricing?.requireAuth) {
        value = parsePricing(await this.optional(PRICING_PATH, signal).catch(() => undefined), status.units);
      }
      if (epoch === this.epoch) this.pricingCache = { at: this.now(), value };
      return value;
    });
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
