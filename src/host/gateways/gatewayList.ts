/**
 * The gateways the extension knows, in the order they are listed: the one made from today's
 * settings (`modelRelay.baseUrl`, `backupUrls`, `extraHeaders`, `defaultSurface`, `models.*`) with
 * the id `default`, as long as a base URL is set, then the entries of `modelRelay.gateways`. An
 * entry with the id `default` replaces the gateway made from the old settings (and takes its place
 * and its tokens): the entry wins. Also what one gateway makes of the settings the rest of the
 * extension reads (`settingsFor`). Plain Node.
 */
import { t } from '../../gateway/l10n';
import {
  parseFallbacks,
  parseGateways,
  suggestGatewayName,
  type Fallbacks,
  type GatewayProfile,
} from '../../gateway/gateways/profile';
import { DEFAULT_GATEWAY_ID } from './activeToken';

export { DEFAULT_GATEWAY_ID } from './activeToken';

/** Today's single-gateway settings, as read (before there were several gateways). */
export interface LegacyGatewaySettings {
  baseUrl: string;
  backupUrls: string[];
  extraHeaders: Record<string, string>;
  defaultSurface: 'compatible' | 'native' | 'responses';
  models: { chat: string; native: string; image: string; imageEdit: string; video: string; completion?: string };
}

export interface GatewayList {
  gateways: GatewayProfile[];
  /** one sentence per entry that was ignored or per old setting that no longer applies */
  problems: string[];
}

/** The gateway with id `default` made from the old settings; none while no base URL is set. */
export function legacyGateway(s: LegacyGatewaySettings): GatewayProfile | undefined {
  const baseUrl = s.baseUrl.trim();
  if (!baseUrl) return undefined;
  const models = Object.fromEntries(Object.entries(s.models).filter(([, v]) => v));
  return {
    id: DEFAULT_GATEWAY_ID,
    name: suggestGatewayName(baseUrl),
    baseUrl,
    ...(s.backupUrls.length ? { backupUrls: s.backupUrls } : {}),
    ...(Object.keys(s.extraHeaders).length ? { extraHeaders: s.extraHeaders } : {}),
    defaultSurface: s.defaultSurface,
    ...(Object.keys(models).length ? { models } : {}),
  };
}

/** The old settings' gateway first (unless an entry has its id), then the valid entries of `modelRelay.gateways`. */
export function gatewayList(legacy: LegacyGatewaySettings, rawGateways: unknown): GatewayList {
  const parsed = parseGateways(rawGateways);
  const old = legacyGateway(legacy);
  if (!old) return parsed;
  if (parsed.gateways.some((g) => g.id === DEFAULT_GATEWAY_ID))
    return {
      gateways: parsed.gateways,
      problems: [
        ...parsed.problems,
        t(
          'modelRelay.baseUrl is not used: the gateway "{0}" in modelRelay.gateways replaces the gateway made from it.',
          DEFAULT_GATEWAY_ID,
        ),
      ],
    };
  return { gateways: [old, ...parsed.gateways], problems: parsed.problems };
}

/**
 * The ids `modelRelay.gateways` names, whether or not each entry can be read (an entry being edited
 * still names its gateway); null when the value is there but not a list (which gateways it names is
 * not known).
 */
export function namedGatewayIds(rawGateways: unknown): string[] | null {
  if (rawGateways === undefined || rawGateways === null) return [];
  if (!Array.isArray(rawGateways)) return null;
  return rawGateways.flatMap((e: unknown) => {
    const id = e && typeof e === 'object' ? (e as { id?: unknown }).id : undefined;
    return typeof id === 'string' ? [id] : [];
  });
}

/** `modelRelay.fallbacks` as read, with the reason when it was ignored. */
export function fallbackList(raw: unknown): { fallbacks: Fallbacks; problems: string[] } {
  const { fallbacks, problem } = parseFallbacks(raw);
  return { fallbacks, problems: problem ? [problem] : [] };
}

/** The settings as one gateway makes them: its address, backups, headers, surface and default models. */
export function settingsFor<S extends LegacyGatewaySettings>(s: S, g: GatewayProfile | undefined): S {
  if (!g) return s;
  const m = g.models ?? {};
  return {
    ...s,
    baseUrl: g.baseUrl,
    backupUrls: g.backupUrls ?? [],
    extraHeaders: g.extraHeaders ?? {},
    defaultSurface: g.defaultSurface ?? s.defaultSurface,
    models: {
      chat: m.chat ?? '',
      native: m.native ?? '',
      image: m.image ?? '',
      imageEdit: m.imageEdit ?? '',
      video: m.video ?? '',
      completion: m.completion ?? '',
    },
  };
}

/** Tells each new set of problems once (a settings change that leaves them as they were tells nothing). */
export class ProblemsOnce {
  private last = '';
  constructor(private readonly tell: (problem: string) => void) {}

  report(problems: readonly string[]): void {
    const now = JSON.stringify(problems);
    if (now === this.last) return;
    this.last = now;
    for (const p of problems) this.tell(p);
  }
}
