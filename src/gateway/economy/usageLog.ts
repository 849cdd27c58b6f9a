/**
 * The gateway's own usage log as an sk- token reads it (new-api `GET /api/log/token`): evidence that a
 * request arrived, what it was billed, and the token's effective group (only this route tells an sk- token).
 * Gentle with the gateway: read on demand, at most once a minute, one read at a time shared by every
 * caller, and through the critical budget it shares with the balance (a 429 on either pauses both).
 * Auth: `Authorization: Bearer` (new-api ≥ 2026-02), else `?key=` in the query (older servers, which
 * read a Bearer-only request as an empty log); which one works is remembered for the gateway. The key in
 * a query is on the wire only: the request log and errors see the path without it.
 * What belongs to the gateway (auth style, the missing route) is kept until `reset`; the records belong
 * to the token and are forgotten when another token is in use.
 */
import { isGatewayError } from '../errors/gatewayError';
import type { Transport } from '../http/transport';
import { arrivalIn } from './arrival';
import type { CriticalBudget } from './criticalBudget';
import type { TokenScope } from './tokenScope';
import type { Units } from './units';
import { parseLogAnswer, parseRecords, USAGE_LOG_BOUNDS, USAGE_LOG_PATH, type LogAnswer } from './usageLogParse';
import type { Arrival, UsageLogRead, UsageRecord } from './usageTypes';

const MINUTE = 60_000;
export const USAGE_LOG_TIMING = {
  /** the shortest time between two reads */
  minIntervalMs: MINUTE,
  /** a gateway without the route is asked again after this long */
  missingMs: 30 * MINUTE,
  /** the record is written after the response finished: allow this long */
  graceMs: 5_000,
};

type Auth = 'bearer' | 'query';
type Fetched = { answer: LogAnswer } | { read: UsageLogRead };

/** The statuses that mean "no such route here" (one-api, new-api before the route). */
const MISSING = new Set([404, 405, 501]);

export class UsageLog {
  private lastRead: { read: UsageLogRead; at: number; gen: number } | undefined;
  /** the newest successful read for this token (kept when a later read is limited or fails) */
  private lastOk: (UsageLogRead & { state: 'ok' }) | undefined;
  private auth: Auth | undefined;
  private missingAt: number | undefined;
  private epoch = 0;
  private inflight: Promise<UsageLogRead> | undefined;

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
    this.inflight = undefined;
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
   * concurrent callers share one read; a paused or spent budget answers `limited` without asking.
   */
  async read(o: { maxAgeMs?: number; signal?: AbortSignal } = {}): Promise<UsageLogRead> {
    const gen = await this.scope.current();
    const maxAge = Math.max(USAGE_LOG_TIMING.minIntervalMs, o.maxAgeMs ?? 0);
    if (this.lastRead && this.lastRead.gen === gen && this.now() - this.lastRead.at < maxAge) return this.lastRead.read;
    if (this.missingAt !== undefined && this.now() - this.missingAt < USAGE_LOG_TIMING.missingMs)
      return { state: 'unsupported' };
    if (!this.inflight) {
      const mine = this.readNow(gen, o.signal).finally(() => {
        if (this.inflight === mine) this.inflight = undefined;
      });
      this.inflight = mine;
    }
    return this.inflight;
  }

  private async readNow(gen: number, signal?: AbortSignal): Promise<UsageLogRead> {
    const epoch = this.epoch;
    const units = await this.units(signal).catch(() => undefined);
    const fetched = await this.fetchLog(epoch, signal);
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

  /** Asks the gateway, with the remembered auth style, or Bearer first and then `?key=` while it is unknown. */
  private async fetchLog(epoch: number, signal?: AbortSignal): Promise<Fetched> {
    const first: Auth = this.auth ?? 'bearer';
    const answer = await this.ask(first, epoch, signal);
    const learn = (auth: Auth) => {
      if (epoch === this.epoch) this.auth = auth;
    };
    if ('read' in answer) return answer;
    if (this.auth || !answer.ok) return { answer };
    if (answer.rows.length) {
      learn(first);
      return { answer };
    }
    // An empty log by Bearer: an older server reads the key from the query only, and finds none in a header.
    const probe = await this.ask('query', epoch, signal);
    if ('read' in probe) {
      // The newer server refuses a key in the query: Bearer was right, and the log is empty.
      if (!probe.refused) return probe;
      learn('bearer');
      return { answer };
    }
    if (probe.ok && probe.rows.length) learn('query');
    return { answer: probe };
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
      if (!isGatewayError(e)) throw e;
      if (e.kind === 'rate_limited') {
        this.critical.limited();
        return { read: { state: 'limited', until: this.critical.nextAt('log') } };
      }
      if ((e.status !== undefined && MISSING.has(e.status)) || (e.kind === 'protocol' && e.status === 200)) {
        if (epoch === this.epoch) this.missingAt = this.now();
        return { read: { state: 'unsupported' } };
      }
      return { read: { state: 'failed', message: e.message }, refused: e.status === 401 && auth === 'query' };
    }
  }

  /**
   * Whether the request with this id (sent at `sentAt`, its response ending `durationMs` later) reached
   * the gateway. `pending` until its record can exist; then the log is read (at most once a minute, shared
   * by every question) and `no-record` is said only by a read made after that time, of a log with ids.
   */
  async arrival(
    requestId: string | undefined,
    sentAt: number,
    durationMs = 0,
    o: { signal?: AbortSignal } = {},
  ): Promise<Arrival> {
    if (!requestId) return { state: 'unknown', reason: 'no-request-id' };
    const readyAt = sentAt + durationMs + USAGE_LOG_TIMING.graceMs;
    if (this.now() < readyAt) {
      const seen = this.findInLastOk(requestId);
      return seen ? { state: 'arrived', record: seen } : { state: 'pending' };
    }
    const read = await this.read(o);
    return arrivalIn(read, this.lastOk, requestId, sentAt, readyAt);
  }

  private findInLastOk(requestId: string): UsageRecord | undefined {
    return this.lastOk?.records.find((r) => r.requestId === requestId);
  }
}
