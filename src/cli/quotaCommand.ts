/**
 * `relay-doctor quota [--json]`: what is left on the token, as the gateway tells it (new-api's
 * token usage, else the billing endpoints), in the gateway's own unit.
 */
import { describeQuota, isGatewayError, type GatewayClient, type Quota } from '../gateway';
import { t } from '../gateway/l10n';

/** The documented `--json` shape: the core's Quota without the name and model limits. */
export type QuotaJson = Pick<Quota, 'source' | 'unlimited' | 'remaining' | 'used' | 'granted' | 'unit' | 'expiresAt'>;

/** Thrown when the gateway offers neither balance endpoint (exit 1, with cause and fix). */
export class NoQuotaError extends Error {
  override readonly cause = t(
    "The gateway answers neither new-api's /api/usage/token/ nor the billing endpoints (/v1/dashboard/billing/subscription) for this token.",
  );
  readonly fix = t(
    "See the balance in the gateway's web console; ask the operator to enable the billing endpoints if you need it here.",
  );
  constructor() {
    super(t('This gateway does not tell a token its balance.'));
  }
}

export async function quota(
  client: GatewayClient,
  json: boolean,
  out: { write(s: string): unknown },
  now = Date.now(),
): Promise<number> {
  let q;
  try {
    q = await client.account.quota({ maxAgeMs: 0 });
  } catch (e) {
    // A 401 from the balance endpoints is the token itself refused: say why, as the chat would.
    if (isGatewayError(e) && e.kind === 'unauthorized') throw await client.account.explainRefusal(e, undefined);
    throw e;
  }
  if (!q) throw new NoQuotaError();
  if (json) {
    const j: QuotaJson = {
      source: q.source,
      unlimited: q.unlimited,
      remaining: q.remaining,
      used: q.used,
      granted: q.granted,
      unit: q.unit,
      expiresAt: q.expiresAt,
    };
    out.write(`${JSON.stringify(j, null, 2)}\n`);
    return 0;
  }
  const words = describeQuota(q, 0, now);
  out.write(
    `${q.name ? `${t('Token: {0}', q.name)}\n` : ''}${t('Balance: {0}', words.short)}\n${words.lines.join('\n')}\n`,
  );
  return 0;
}
