/**
 * A reply's receipt in the chat's words (shared/reference/relay-receipts.md §8): the line under the reply
 * ("Receipt: $0.0123 charged · consistent with the price list of 14:02") and the whole receipt — the
 * record (models, tokens, charge, group and ratios, latency, how it was matched), the billing checks, and
 * apart from them the route findings (a recorded redirect, a forward to another relay) — each check with
 * its state and its sentence, which names the witness, and the disclaimer. Three states only; nothing
 * here says "verified" or "genuine". Plain Node: the core wrote the sentences, this arranges them.
 */
import { checkStateText, receiptDisclaimer, type CheckState, type Receipt, type ReceiptCheck } from '../../gateway';
import { t } from '../../gateway/l10n';
import type { ChatReceipt, ChatReceiptRow } from '../../shared/chatProtocol';
import type { CallReceipt } from '../usage/receiptSource';

/** The line under the reply: the charge, and the billing checks' state, naming the witness. */
function receiptLine(r: Receipt, billing: CheckState): string {
  const priceList = r.billing.find((c) => c.id === 'price-list');
  const listedAt = priceList?.inputs.price_list_read_at;
  if (billing === 'consistent' && priceList?.state === 'consistent' && typeof listedAt === 'string')
    return t('Receipt: {0} charged · consistent with the price list of {1}', r.charge.text, listedAt);
  return t("Receipt: {0} charged · {1} according to the gateway's log", r.charge.text, checkStateText(billing));
}

const CHECK_LABELS: Record<ReceiptCheck['id'], () => string> = {
  arithmetic: () => t('Charge arithmetic'),
  'price-list': () => t('Price list'),
  tokens: () => t('Tokens billed vs reported'),
  input: () => t('Input vs a local count'),
  redirect: () => t('Model redirect'),
  chain: () => t('Relay chain'),
};

function checkRow(c: ReceiptCheck): ChatReceiptRow {
  return { label: CHECK_LABELS[c.id](), value: c.text, check: { state: c.state, text: checkStateText(c.state) } };
}

const ratio = (r: number) => String(Number(r.toPrecision(6)));

/** "default · model ×0.075 · completion ×4 · group ×1" (the ratios the record carries). */
function groupAndRatios(r: Receipt): string {
  const rt = r.ratios;
  const parts: string[] = [r.group ?? t('no group recorded')];
  const put = (label: string, v: number | undefined) => {
    if (v !== undefined && v !== -1) parts.push(`${label} ×${ratio(v)}`);
  };
  if (rt.modelPrice !== undefined && rt.modelPrice !== -1) parts.push(t('{0} per call', `$${ratio(rt.modelPrice)}`));
  put('model_ratio', rt.model);
  put('completion_ratio', rt.completion);
  put('group_ratio', rt.group);
  if (r.tokens.cacheRead > 0) put('cache_ratio', rt.cache);
  if (r.tokens.cacheWrite > 0) put('cache_creation_ratio', rt.cacheCreation);
  put('user_group_ratio', rt.userGroup);
  return parts.join(' · ');
}

/** The record's facts: models, tokens, charge, group and ratios, latency, and how the call was matched. */
function recordRows(r: Receipt): ChatReceiptRow[] {
  const tk = r.tokens;
  const tokens = [t('{0} prompt', tk.prompt), t('{0} completion', tk.completion)];
  if (tk.cacheRead) tokens.push(t('{0} cache read', tk.cacheRead));
  if (tk.cacheWrite) tokens.push(t('{0} cache write', tk.cacheWrite));
  const lat = r.latency;
  const latency = [t('{0} s at the gateway', lat.useTimeS)];
  if (lat.firstResponseMs !== undefined) latency.push(t('first response after {0} ms', lat.firstResponseMs));
  if (lat.clientMs !== undefined) latency.push(t('{0} s here', (lat.clientMs / 1000).toFixed(1)));
  const rows: ChatReceiptRow[] = [];
  if (r.requestedModel !== undefined) rows.push({ label: t('Requested model'), value: r.requestedModel });
  rows.push({ label: t('Billed model'), value: r.billedModel });
  if (r.upstreamModel !== undefined)
    rows.push({ label: t("Upstream model (the gateway's record)"), value: r.upstreamModel });
  rows.push(
    { label: t('Tokens billed'), value: tokens.join(' · ') },
    { label: t('Charge'), value: t('{0} quota ({1})', r.charge.quota, r.charge.text) },
    { label: t('Group and ratios'), value: groupAndRatios(r) },
    { label: t('Latency'), value: latency.join(' · ') },
    { label: t('Match'), value: r.matchText },
  );
  return rows;
}

/** The receipt as the chat shows it: the line, the inconsistent sentences, the detail, the disclaimer. */
export function chatReceipt({ receipt: r, billing, route }: CallReceipt): ChatReceipt {
  const inconsistent = [...r.billing, ...r.route].filter((c) => c.state === 'inconsistent');
  return {
    line: receiptLine(r, billing),
    kind: billing === 'inconsistent' || route === 'inconsistent' ? 'warning' : 'ok',
    warnings: inconsistent.map((c) => c.text),
    sections: [
      { title: t("The gateway's record"), rows: recordRows(r) },
      { title: t('Billing checks'), rows: r.billing.map(checkRow) },
      { title: t('Route (which model, which relay)'), rows: r.route.map(checkRow) },
    ],
    disclaimer: receiptDisclaimer(),
  };
}
