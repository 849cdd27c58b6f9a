/**
 * `relay-doctor models [--json]`: the models the token sees, each with its price where the gateway
 * publishes one (new-api's `/api/pricing`: input / output per 1M tokens, or per call, in the gateway's
 * own unit; "priced by usage tier" for dynamic pricing) and the groups that can use it. A gateway
 * without public prices (one-api, pricing disabled or behind a login) still lists its models, with "—".
 */
import { priceText, type GatewayClient, type ModelInfo, type ModelPrice } from '../gateway';
import { cells, padCells } from '../gateway/diagnose/textWidth';
import { t } from '../gateway/l10n';

/** Where nothing is known (no published price, no groups). */
const UNKNOWN = '—';

/** A model's price in `--json`: per 1M tokens (`input`, `output`), per call (`perCall`), or dynamic. */
export interface PriceJson {
  unit: string;
  dynamic: boolean;
  input?: number;
  output?: number;
  perCall?: number;
}

/** One model in `--json`. `price` and `groups` are null where the gateway publishes no price for it. */
export interface ModelJson {
  id: string;
  capabilities: string[] | null;
  ownedBy: string | null;
  price: PriceJson | null;
  groups: string[] | null;
}

/**
 * The documented `--json` shape: `models` is the token's list; `unlisted` the models the gateway prices
 * that the token's list lacks (another group's: `groups` says which); `pricing` whether the gateway
 * published its prices at all.
 */
export interface ModelsJson {
  pricing: 'published' | 'unavailable';
  models: ModelJson[];
  unlisted: ModelJson[];
}

function priceJson(p: ModelPrice | undefined): PriceJson | null {
  if (!p) return null;
  const out: PriceJson = { unit: p.unit, dynamic: p.dynamic };
  if (p.dynamic) return out;
  if (p.perCall !== undefined) out.perCall = p.perCall;
  if (p.input !== undefined) out.input = p.input;
  if (p.output !== undefined) out.output = p.output;
  return out;
}

/** The `--json` document for a model list and the prices read beside it. */
export function modelsJson(list: readonly ModelInfo[], prices: Map<string, ModelPrice> | undefined): ModelsJson {
  const entry = (m: ModelInfo): ModelJson => {
    const p = prices?.get(m.id);
    return {
      id: m.id,
      capabilities: m.capabilities ?? null,
      ownedBy: m.ownedBy ?? null,
      price: priceJson(p),
      groups: p ? [...p.groups] : null,
    };
  };
  return {
    pricing: prices ? 'published' : 'unavailable',
    models: list.map(entry),
    unlisted: unlisted(list, prices).map(entry),
  };
}

/** The priced models the token's list lacks (the gateway's pricing names every group's models). */
function unlisted(list: readonly ModelInfo[], prices: Map<string, ModelPrice> | undefined): ModelInfo[] {
  if (!prices) return [];
  const listed = new Set(list.map((m) => m.id));
  return [...prices.keys()].filter((id) => !listed.has(id)).map((id) => ({ id }));
}

/** The table's rows: model, capabilities, price, groups ("—" where unknown). */
function rowsOf(list: readonly ModelInfo[], prices: Map<string, ModelPrice> | undefined): string[][] {
  return list.map((m) => {
    const p = prices?.get(m.id);
    return [
      m.id,
      m.capabilities?.join(', ') ?? '',
      priceText(p) ?? UNKNOWN,
      p?.groups.length ? p.groups.join(', ') : UNKNOWN,
    ];
  });
}

/** The table as lines, in pieces of a few thousand (a list can hold hundreds of thousands of models). */
export function* modelTable(
  list: readonly ModelInfo[],
  prices: Map<string, ModelPrice> | undefined,
): Generator<string, void, undefined> {
  const head = [t('Model'), t('Capabilities'), t('Price'), t('Groups')];
  const rows = rowsOf(list, prices);
  const others = rowsOf(unlisted(list, prices), prices);
  // (a loop, not Math.max(...list): a gateway's list can be longer than a call's arguments may be)
  const widths = head.map((h) => cells(h));
  for (const r of [...rows, ...others]) {
    for (let i = 0; i < r.length; i++) widths[i] = Math.max(widths[i], cells(r[i]));
  }
  const line = (r: string[]) =>
    r
      .map((c, i) => (i < r.length - 1 ? padCells(c, widths[i] + 2) : c))
      .join('')
      .trimEnd();
  const block = (list: string[][]) => `${list.map(line).join('\n')}\n`;
  yield `${line(head)}\n`;
  for (let i = 0; i < rows.length; i += 4096) yield block(rows.slice(i, i + 4096));
  if (!others.length) return;
  yield `\n${t("Priced by the gateway, but not in this token's list (another group's models):")}\n`;
  for (let i = 0; i < others.length; i += 4096) yield block(others.slice(i, i + 4096));
}

/** Runs `models`: the list and the prices read together (a gateway without prices lists its models all the same). */
export async function models(
  client: GatewayClient,
  json: boolean,
  io: {
    stdout: { write(s: string): unknown };
    stderr: { write(s: string): unknown };
  },
): Promise<number> {
  const [list, prices] = await Promise.all([client.listModels(), client.account.pricing().catch(() => undefined)]);
  if (json) {
    io.stdout.write(`${JSON.stringify(modelsJson(list, prices), null, 2)}\n`);
    return 0;
  }
  if (!list.length) io.stderr.write(`relay-doctor: ${t("the token's group sees no model.")}\n`);
  if (list.length || prices?.size) for (const piece of modelTable(list, prices)) io.stdout.write(piece);
  if (!prices)
    io.stderr.write(`relay-doctor: ${t('the gateway publishes no prices (/api/pricing): "—" in the table.')}\n`);
  return 0;
}
