/**
 * The gateway's own usage log as an sk- token reads it (new-api `GET /api/log/token`): evidence that a
 * request arrived, what it was billed, and the token's effective group (only this route tells an sk- token).
 * Gentle with the gateway: read on demand, at most once a minute, one read at a time shared by every
 * caller, and through the critical budget it shares with the balance (a 429 on either pauses both).
 * Auth: `Authorization: Bearer` (new-api ≥ 2026-02), else `?key=` in the query (older servers, which
 * read a Bearer-only request as an empty log, or answer it `success:false`). A key in a URL ends up in
 * access logs, so the query form is tried only when Bearer gave no usable answer, and what the two
 * answers showed is remembered for the gateway: one style per read once it is known. The key in a query
 * is on the wire only: the request log and errors see the path without it.
 * What belongs to the gateway (auth style, the missing route) is kept until `reset`; the records belong
 * to the token and are forgotten when another token is in use.
 */
import { isGatewayError } from '../errors/gatewayError';
import { t } from '../l10n';
import type { Transport } from '../http/transport';
import { arrivalIn } from './arrival';
import type { CriticalBudget } from './criticalBudget';
import { SharedReads } from './sharedReads';
import type { TokenScope } from './tokenScope';
import type { Units } from './units';
import { parseLogAnswer, parseRecords, USAGE_LOG_BOUNDS, USAGE_LOG_PATH, type LogAnswer } from './usageLogParse';
import type { Arrival, UsageLogRead, UsageRecord } from './usageTypes';

const MINUTE = 60_000;
const MB = 1024 * 1024;
export const USAGE_LOG_TIMING = {
  /** the shortest time between two reads */
  minIntervalMs: MINUTE,
  /** a gateway without the route is asked again after this long */
  missingMs: 30 * MINUTE,
  /** the record is written after the response finished: allow this long */
  graceMs: 5_000,
  /**
   * Bearer read an empty log that `?key=` did not improve: Bearer is used, and `?key=` tried again after
   * this long while Bearer's log stays empty (an older server reads any Bearer request as an empty log,
   * however many records the token has: its records show only once the query form is asked again).
   */
  recheckMs: 30 * MINUTE,
};

type Auth = 'bearer' | 'query';
type Fetched = { answer: LogAnswer } | { read: UsageLogRead };

/** The statuses that mean "no such route here" (one-api, new-api before the route). */
const MISSING = new Set([404, 405, 501]);

export class UsageLog {
  private lastRead: { read: UsageLogRead; at: number; gen: number } | undefined;
  /** the newest successful read for this token (kept when a later read is limited or fails) */
  private lastOk: (UsageLogRead & { state: 'ok' }) | undefined;
  /**
   * The auth style learnt for the gateway; `emptyAt`: only an empty log taught it (Bearer and `?key=` both
   * read an empty log, at that time), so the query form is tried again after `recheckMs` while it stays empty.
   */
  private auth: { style: Auth; emptyAt?: number } | undefined;
  /**
   * Bearer and `?key=` were both refused (`success:false`) for this token: the query form is not tried
   * again while Bearer's answer stays a refusal (a disabled token is refused both ways, on every read).
   */
  private refusedBothWays = false;
  private missingAt: number | undefined;
  private epoch = 0;
  /** one read at a time (per gateway and token), shared by every caller */
  private readonly reads = new SharedReads();

  constructor(
    private readonly transport: Transport,
    private readonly now: () => number,
    private readonly timeoutMs: () => number,
    private readonly scope: TokenScope,
    private readonly critical: CriticalBudget,
    private readonly units: (signal?: AbortSignal) => Promise<Units | undefined>,
  ) {
    scope.onForget(() => this.forgetToken());
  }

  /** Forget everything the gateway said (another base URL or backups). */
  reset(): void {
    this.epoch++;
    this.auth = undefined;
    this.missingAt = undefined;
    this.forgetToken();
  }

  private forgetToken(): void {
    this.lastRead = undefined;
    this.lastOk = undefined;
    this.refusedBothWays = false;
  }

  /** The last read's answer, however old (undefined before the first). */
  get last(): UsageLogRead | undefined {
    return this.lastRead?.read;
  }

  /** The token's effective group: the newest record's group (undefined until a read has one). */
  get group(): string | undefined {
    return this.lastOk?.records.find((r) => r.group)?.group;
  }

  /**
   * The log, newest first. A read younger than a minute (or `maxAgeMs`, when longer) is answered again;
   * concurrent callers share one read (a caller's abort stops it only when no other caller waits for it);
   * a paused or spent budget answers `limited` without asking.
   */
  async read(o: { maxAgeMs?: number; signal?: AbortSignal } = {}): Promise<UsageLogRead> {
    const gen = await this.scope.current();
    const maxAge = Math.max(USAGE_LOG_TIMING.minIntervalMs, o.maxAgeMs ?? 0);
    if (this.lastRead && this.lastRead.gen === gen && this.now() - this.lastRead.at < maxAge) return this.lastRead.read;
    if (this.missingAt !== undefined && this.now() - this.missingAt < USAGE_LOG_TIMING.missingMs)
      return { state: 'unsupported' };
    return this.reads.run(`log#${gen}@${this.epoch}`, (shared) => this.readNow(gen, shared), o.signal);
  }

  private async readNow(gen: number, signal?: AbortSignal): Promise<UsageLogRead> {
    const epoch = this.epoch;
    const units = await this.units(signal).catch(() => undefined);
    const fetched = await this.fetchLog(epoch, gen, signal);
    const read: UsageLogRead =
      'read' in fetched
        ? fetched.read
        : fetched.answer.ok
          ? { state: 'ok', records: parseRecords(fetched.answer.rows, units), readAt: this.now(), units }
          : { state: 'failed', message: fetched.answer.message };
    if (epoch === this.epoch && this.scope.holds(gen)) {
      // A read the budget refused asked nothing: the next caller may try again.
      if (read.state !== 'limited') this.lastRead = { read, at: this.now(), gen };
      if (read.state === 'ok') this.lastOk = read;
    }
    return read;
  }

  /**
   * Asks the gateway with the auth style learnt for it; while it is unknown, Bearer first and `?key=` only
   * when Bearer gave no usable answer — an empty log (an older server reads the key from the query only)
   * or `success:false` (an older new-api without a key). What the two answers show is learnt: records, or an
   * answer where Bearer was refused, make it `query`; the query form refused makes it `bearer`; an empty log
   * the query form did not improve makes it `bearer` until `recheckMs` has passed with the log still empty.
   * Both refused is remembered for the token. So a read asks both ways at most once per answer.
   */
  private async fetchLog(epoch: number, gen: number, signal?: AbortSignal): Promise<Fetched> {
    const known = this.auth;
    if (known && known.emptyAt === undefined) {
      const answer = await this.ask(known.style, epoch, signal);
      return 'read' in answer ? answer : { answer };
    }
    const learn = (style: Auth, emptyAt?: number) => {
      if (epoch === this.epoch) this.auth = emptyAt === undefined ? { style } : { style, emptyAt };
    };
    const bearer = await this.ask('bearer', epoch, signal);
    if ('read' in bearer) return bearer;
    if (bearer.ok && bearer.rows.length) {
      learn('bearer');
      return { answer: bearer };
    }
    // Bearer gave no usable answer: the query form, unless it was just tried against the same answer.
    if (bearer.ok && known?.emptyAt !== undefined && this.now() - known.emptyAt < USAGE_LOG_TIMING.recheckMs)
      return { answer: bearer };
    if (!bearer.ok && this.refusedBothWays) return { answer: bearer };
    const query = await this.ask('query', epoch, signal);
    if ('read' in query) {
      // A newer server refuses a key in the query (401): Bearer is the style, and its answer stands.
      if (!query.refused) return query;
      learn('bearer');
      return { answer: bearer };
    }
    if (query.ok && (query.rows.length || !bearer.ok)) {
      learn('query');
      return { answer: query };
    }
    if (bearer.ok) learn('bearer', query.ok ? this.now() : undefined);
    else if (epoch === this.epoch && this.scope.holds(gen)) this.refusedBothWays = true;
    return { answer: bearer };
  }

  private async ask(
    auth: Auth,
    epoch: number,
    signal?: AbortSignal,
  ): Promise<LogAnswer | { read: UsageLogRead; refused?: boolean }> {
    if (!this.critical.take('log')) return { read: { state: 'limited', until: this.critical.nextAt('log') } };
    try {
      const { data } = await this.transport.json({
        method: 'GET',
        path: USAGE_LOG_PATH,
        surface: 'compatible',
        capability: 'account',
        timeoutMs: this.timeoutMs(),
        noRetry: true,
        tokenInQuery: auth === 'query',
        maxBytes: USAGE_LOG_BOUNDS.bytes,
        signal,
      });
      return parseLogAnswer(data) ?? { read: { state: 'unsupported' } };
    } catch (e) {
      // A read every caller left says nothing of the gateway: nothing is kept of it.
      if (!isGatewayError(e) || e.kind === 'aborted') throw e;
      if (e.kind === 'rate_limited') {
        this.critical.limited();
        return { read: { state: 'limited', until: this.critical.nextAt('log') } };
      }
      // An answer over the read cap is a log too large to read, not a gateway without one (nothing learnt of the route).
      if (e.detail === 'body_too_large')
        return {
          read: {
            state: 'failed',
            message: t('the log is too large to read ({0} MB cap)', USAGE_LOG_BOUNDS.bytes / MB),
          },
        };
      if ((e.status !== undefined && MISSING.has(e.status)) || (e.kind === 'protocol' && e.status === 200)) {
        if (epoch === this.epoch) this.missingAt = this.now();
        return { read: { state: 'unsupported' } };
      }
      return { read: { state: 'failed', message: e.message, error: e }, refused: e.status === 401 && auth === 'query' };
    }
  }

  /**
   * Whether the request with this id (sent at `sentAt`, its response ending `durationMs` later) reached
   * the gateway. `pending` until its record can exist; then the log is read (at most once a minute, shared
   * by every question) and `no-record` is said only by a read made after that time, of a log with ids.
   * `graceMs`: how long after the response the record is expected (default 5 s).
   */
  async arrival(
    requestId: string | undefined,
    sentAt: number,
    durationMs = 0,
    o: { signal?: AbortSignal; graceMs?: number } = {},
  ): Promise<Arrival> {
    if (!requestId) return { state: 'unknown', reason: 'no-request-id' };
    const readyAt = sentAt + durationMs + (o.graceMs ?? USAGE_LOG_TIMING.graceMs);
    if (this.now() < readyAt) {
      const seen = this.findInLastOk(requestId);
      return seen ? { state: 'arrived', record: seen } : { state: 'pending' };
    }
    const read = await this.read({ ...(o.signal ? { signal: o.signal } : {}) });
    return arrivalIn(read, this.lastOk, requestId, sentAt, readyAt);
  }

  private findInLastOk(requestId: string): UsageRecord | undefined {
    return this.lastOk?.records.find((r) => r.requestId === requestId);
  }
}
