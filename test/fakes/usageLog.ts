/**
 * A usage-log reader as the views see it (src/host/usage/arrivals.ts's ArrivalReader), over a list of
 * records the test writes: one read of "the log" shared by the questions asked while it is under way,
 * answers for records it holds, "no record" once the record should exist, "pending" before that.
 * It counts its reads, so a test can prove a view asks for one read per gateway, not one per row.
 */
import type { Arrival, UsageRecord } from '../../src/gateway/economy/usageTypes';
import type { ArrivalReader } from '../../src/host/usage/arrivals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RequestRecord } from '../../src/gateway';

const dirs: string[] = [];
process.on('exit', () => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A fresh folder for a request log's files (src/host/usage/localLog.ts), removed when the test process ends. */
export function logDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'relay-log-'));
  dirs.push(d);
  return d;
}

export function usageRecord(requestId: string, extra: Partial<UsageRecord> = {}): UsageRecord {
  return {
    time: 1_700_000_000_000,
    kind: 'consume',
    model: 'gpt-4o-mini',
    quota: 20_000,
    cost: { amount: 0.04, unit: 'USD' },
    promptTokens: 12,
    completionTokens: 345,
    useTimeS: 1,
    firstResponseMs: 300,
    stream: true,
    tokenName: 'production',
    group: 'default',
    requestId,
    requestPath: '/v1/chat/completions',
    other: undefined,
    ...extra,
  };
}

export class FakeUsageLog implements ArrivalReader {
  reads = 0;
  questions = 0;
  private inFlight: Promise<UsageRecord[]> | undefined;

  constructor(
    public records: UsageRecord[],
    private readonly now: () => number = Date.now,
    /** how long after a response its record is written (ms) */
    private readonly writeDelayMs = 3000,
  ) {}

  private read(): Promise<UsageRecord[]> {
    this.inFlight ??= new Promise<UsageRecord[]>((resolve) => {
      this.reads++;
      setImmediate(() => resolve([...this.records]));
    }).finally(() => (this.inFlight = undefined));
    return this.inFlight;
  }

  async arrival(requestId: string, sentAt: number, durationMs = 0): Promise<Arrival> {
    this.questions++;
    const records = await this.read();
    const found = records.find((r) => r.requestId === requestId);
    if (found) return { state: 'arrived', record: found };
    if (this.now() < sentAt + durationMs + this.writeDelayMs) return { state: 'pending' };
    return { state: 'no-record', checkedAt: this.now() };
  }
}

/** "Now" of the tests: a minute after the first local record. */
export const NOW = 1_700_000_100_000;

/** A local request record (src/host/usage/localLog.ts), the i-th second of the last minute. */
export function rec(i: number, extra: Partial<RequestRecord> = {}): RequestRecord {
  return {
    time: new Date(NOW - 60_000 + i * 1000).toISOString(),
    surface: 'compatible',
    capability: 'chat',
    host: 'gw.example.com',
    method: 'POST',
    path: '/v1/chat/completions',
    model: 'gpt-4o-mini',
    status: 200,
    errorKind: undefined,
    durationMs: 10,
    maskedToken: 'sk-abc...wxyz',
    requestId: `req-${i}`,
    attempt: 1,
    stream: true,
    gateway: 'Main',
    ...extra,
  };
}
