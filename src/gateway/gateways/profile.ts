/**
 * A gateway profile: one relay the user pays, with its own address, backups, headers and default
 * models. The same shape is the extension's `modelRelay.gateways` setting and relay-doctor's
 * `--gateways FILE`; tokens are never part of it (SecretStorage per gateway, or an environment
 * variable the file names). A profile's id is stable (it prefixes the model ids VS Code remembers,
 * `<gateway id>/<model id>`), its name is what people read.
 *
 * Parsing never throws and never loses the good entries: a bad entry is dropped with a problem that
 * names it by position and id, never by a header value (headers may carry credentials).
 */
import { z } from 'zod';
import { t } from '../l10n';
import { hostOf, normalizeBaseUrl } from '../endpoint';

/** Letters, digits, `.`, `_`, `-`; no `/` (the id prefixes model ids as `<id>/<model>`). */
export const GATEWAY_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
export const MAX_GATEWAYS = 32;
export const MAX_BACKUPS = 10;
export const MAX_FALLBACKS_PER_MODEL = 8;

const modelId = z.string().trim().max(256);

export const gatewayModelsSchema = z
  .object({
    chat: modelId.optional(),
    native: modelId.optional(),
    image: modelId.optional(),
    imageEdit: modelId.optional(),
    video: modelId.optional(),
    completion: modelId.optional(),
  })
  .strict();

export const gatewayProfileSchema = z
  .object({
    id: z.string().regex(GATEWAY_ID),
    name: z.string().trim().min(1).max(80),
    baseUrl: z.string().trim().min(1).max(2048),
    backupUrls: z.array(z.string().trim().min(1).max(2048)).max(MAX_BACKUPS).optional(),
    extraHeaders: z.record(z.string(), z.string()).optional(),
    defaultSurface: z.enum(['compatible', 'native', 'responses']).optional(),
    models: gatewayModelsSchema.optional(),
  })
  .strict();

export type GatewayModels = z.infer<typeof gatewayModelsSchema>;
export type GatewayProfile = z.infer<typeof gatewayProfileSchema>;

/** One place a chat request may move to when its gateway cannot serve it. */
export const fallbackTargetSchema = z.object({ gateway: z.string().min(1), model: modelId.min(1) }).strict();
export type FallbackTarget = z.infer<typeof fallbackTargetSchema>;

/** `modelRelay.fallbacks`: per model id, the ordered places to try next. */
export const fallbacksSchema = z.record(z.string(), z.array(fallbackTargetSchema).max(MAX_FALLBACKS_PER_MODEL));
export type Fallbacks = z.infer<typeof fallbacksSchema>;

export interface ParsedGateways {
  gateways: GatewayProfile[];
  /** one sentence per dropped entry (by position and id, never a header value) */
  problems: string[];
}

/** The field a zod issue is about, as a dotted path (a header's name at most, never its value). */
function fieldOf(issue: z.ZodIssue): string {
  return issue.path.map(String).join('.') || t('the entry');
}

/**
 * Reads a list of gateway profiles (a setting's value or a file's JSON). Keeps every valid entry in
 * order; drops an invalid one, a second entry with an id already taken, an unusable base URL, and
 * anything past MAX_GATEWAYS, each with a problem.
 */
export function parseGateways(
  input: unknown,
  extra?: (entry: unknown, at: string) => string | undefined,
): ParsedGateways {
  const problems: string[] = [];
  if (input === undefined || input === null) return { gateways: [], problems };
  if (!Array.isArray(input)) return { gateways: [], problems: [t('The gateways must be a list (a JSON array).')] };
  const gateways: GatewayProfile[] = [];
  const ids = new Set<string>();
  input.forEach((entry: unknown, i) => {
    const rawId = (entry as { id?: unknown } | null)?.id;
    const at =
      typeof rawId === 'string' && GATEWAY_ID.test(rawId)
        ? t('gateway {0} ("{1}")', i + 1, rawId)
        : t('gateway {0}', i + 1);
    if (gateways.length >= MAX_GATEWAYS) {
      problems.push(t('{0} was ignored: at most {1} gateways are read.', at, MAX_GATEWAYS));
      return;
    }
    const own = extra?.(entry, at);
    if (own) {
      problems.push(own);
      return;
    }
    const parsed = gatewayProfileSchema.safeParse(entry);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      problems.push(
        t('{0} was ignored: {1} is not valid ({2}).', at, issue ? fieldOf(issue) : '', issue?.message ?? ''),
      );
      return;
    }
    const p = parsed.data;
    if (ids.has(p.id)) {
      problems.push(t('{0} was ignored: another gateway already has the id "{1}".', at, p.id));
      return;
    }
    const n = normalizeBaseUrl(p.baseUrl);
    if (!n.base) {
      problems.push(t('{0} was ignored: its base URL is not usable ({1}).', at, n.findings[0]?.message ?? ''));
      return;
    }
    ids.add(p.id);
    gateways.push(p);
  });
  return { gateways, problems };
}

/** Reads `modelRelay.fallbacks` (or a file's); an invalid value is no fallbacks, with the reason. */
export function parseFallbacks(input: unknown): { fallbacks: Fallbacks; problem: string | undefined } {
  if (input === undefined || input === null) return { fallbacks: {}, problem: undefined };
  const parsed = fallbacksSchema.safeParse(input);
  if (parsed.success) return { fallbacks: parsed.data, problem: undefined };
  const issue = parsed.error.issues[0];
  return {
    fallbacks: {},
    problem: t(
      'The fallbacks were ignored: {0} is not valid ({1}).',
      issue ? fieldOf(issue) : '',
      issue?.message ?? '',
    ),
  };
}

/** A name for a new gateway from its address: the host without `www.` or `api.` ("relay.example.com"). */
export function suggestGatewayName(baseUrl: string): string {
  const base = normalizeBaseUrl(baseUrl).base;
  const host = base ? hostOf(base) : '';
  return host.replace(/^(www|api)\./i, '') || t('Gateway');
}

/** An id for a new gateway from its name, not one of `taken` ("relay-example-com", "relay-example-com-2"). */
export function gatewayIdFor(name: string, taken: Iterable<string>): string {
  const used = new Set(taken);
  const slug =
    name
      .toLowerCase()
      .normalize('NFKD')
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 48) || 'gateway';
  if (!used.has(slug)) return slug;
  for (let n = 2; n < 10_000; n++) if (!used.has(`${slug}-${n}`)) return `${slug}-${n}`;
  return `${slug}-${Date.now().toString(36)}`;
}
