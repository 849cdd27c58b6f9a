/**
 * The seam between the receipts of billed calls (kept by the usage room, read from each gateway's own
 * usage log within its shared read budget) and what shows them: the chat panel's line under a reply,
 * the Usage view's Receipts column. A receipt exists only once the gateway's log holds the call's record.
 */
import type { CheckState, Receipt, RequestRecord } from '../../gateway';

/** One call's receipt as the UI shows it. */
export interface CallReceipt {
  /** the whole receipt: charge, models, tokens, ratios, each check with its sentence and inputs */
  receipt: Receipt;
  /** the worst state of the billing checks (charge, price list, tokens, input) */
  billing: CheckState;
  /** the worst state of the route checks (a recorded redirect, a forward), kept apart from billing */
  route: CheckState;
}

/** The call a receipt is asked for: the request record of it, or what a reply knows of it. */
export type ReceiptQuery = Pick<RequestRecord, 'time' | 'model' | 'requestId' | 'gateway' | 'host'>;

export interface ReceiptSource {
  /** The call's receipt, once its gateway's log has been read and its record found; else undefined. */
  find(call: ReceiptQuery): CallReceipt | undefined;
  /**
   * A call was made that wants its receipt: its gateway's log is read once soon after (coalesced with
   * every other call's wish, never while the log is rate-limited, nothing read per request).
   */
  want(call: ReceiptQuery): void;
  /** Fires when receipts were added (after a read of some gateway's log). */
  onDidChange(listener: () => void): { dispose(): void };
}
