/**
 * Receipts against the simulator, one gateway per usage-log vintage (NA26 with request ids, NA25 and NA24
 * without, matched by time): calls made through the client (its request log is "the call as we made
 * it"), the log and the price list read through the client, the receipts reconciled.
 */
import { before, after, beforeEach } from 'node:test';
import { countTokens } from '../../src/host/lm/tokenizer';
import {
  reconcile,
  type CheckState,
  type CountText,
  type Receipt,
  type ReceiptCall,
  type RequestRecord,
} from '../../src/gateway';
import { maskToken } from '../../src/gateway/mask';
import { startSimulator, type Simulator } from '../sim/server';
import { defaultUsageLog, type LogVintage } from '../sim/usageLog';
import { makeClient, type TestClient } from './helpers';

export const VINTAGES: LogVintage[] = ['NA26', 'NA25', 'NA24'];

/** The simulators, one per vintage (NA25 and NA24 are older servers: the key goes in the query). */
export function useVintageSims(): Record<LogVintage, Simulator> {
  const sims = {} as Record<LogVintage, Simulator>;
  before(async () => {
    sims.NA26 = await startSimulator({ profile: 'real' });
    sims.NA25 = await startSimulator({ profile: 'real', gateway: 'new-api-2025' });
    sims.NA24 = await startSimulator({ profile: 'real', gateway: 'new-api-2025' });
  });
  after(async () => {
    for (const s of Object.values(sims)) await s.close();
  });
  beforeEach(() => {
    for (const [vintage, s] of Object.entries(sims) as Array<[LogVintage, Simulator]>) {
      s.reset();
      s.config.usageLog = { ...defaultUsageLog(), delayMs: 0, vintage };
      s.config.dishonest = undefined;
    }
  });
  return sims;
}

/** The tokenizer the client counts with, as the extension loads it (dist/tokenizer.js is this module). */
export const countText: CountText = (text) => Promise.resolve(countTokens(text));

/** The billed calls of a request log (successful POSTs), as receipts take them. */
export function callsOf(records: readonly RequestRecord[]): ReceiptCall[] {
  return records.filter((r) => r.method === 'POST' && r.status === 200);
}

/** The newest billed call of the request log, once its record (with the local count of its input) is written. */
export async function lastCall(tc: TestClient): Promise<ReceiptCall> {
  await tc.client.recordsWritten();
  return callsOf(tc.records).at(-1)!;
}

/** Reads the log and the price list through the client and reconciles `calls` with them (the log is `tokenName`'s). */
export async function receipts(sim: Simulator, tc: TestClient, calls: ReceiptCall[], tokenName = 'production') {
  const read = await tc.client.usage.read();
  if (read.state !== 'ok') throw new Error(`the log was not read: ${JSON.stringify(read)}`);
  const prices = await tc.client.account.priceList();
  return {
    read,
    prices,
    ...reconcile(calls, read.records, { prices, units: read.units }, { maskedToken: maskToken(sim.tokens[tokenName]) }),
  };
}

export type CheckStates = Record<string, CheckState>;

/** Each check's state, by id. */
export const statesOf = (r: Receipt): CheckStates =>
  Object.fromEntries([...r.billing, ...r.route].map((c) => [c.id, c.state]));

/** What an honest call's receipt says on each vintage, with a local count (NA25/NA24: no forward records; NA24: no redirect records either). */
export function honestStates(v: LogVintage): CheckStates {
  return {
    arithmetic: 'consistent',
    'price-list': 'consistent',
    tokens: 'consistent',
    input: 'consistent',
    redirect: v === 'NA24' ? 'not-checkable' : 'consistent',
    chain: v === 'NA26' ? 'consistent' : 'not-checkable',
  };
}

/** A client of the simulator that counts each chat's input for its receipt, as the extension's do. */
export const client = (sim: Simulator, tokenName?: string) =>
  makeClient(sim, { countText, ...(tokenName ? { tokenName } : {}) });

/** A user message of `n` words. */
export const wordsOf = (n: number, seed = 'w') => Array.from({ length: n }, (_, i) => `${seed}${i}`).join(' ');

export function checkOf(r: Receipt, id: string) {
  return [...r.billing, ...r.route].find((c) => c.id === id)!;
}
