/**
 * Configure Base URL's decision, and how "Keep what I typed" is remembered. The endpoint rules
 * normally rewrite a base URL (no /v1, no full endpoint path, …); a user who keeps what they typed
 * gets that exact address called. The choice is remembered in global state next to the value it was
 * made for: it holds while `modelRelay.baseUrl` is exactly that text (across reloads), and ends when
 * the setting is changed to anything else (by hand or by the command). Plain Node.
 */
import { normalizeBaseUrl, verbatimBaseUrl, type EndpointFinding } from '../../gateway/endpoint';

export const KEPT_BASE_URL_KEY = 'modelRelay.baseUrlKeptAsTyped';

/** The part of VS Code's Memento (globalState) used here. */
export interface KeptState {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): PromiseLike<void>;
}

/** The base URL the user chose to keep as typed, remembered with the value it was chosen for. */
export class KeptBaseUrl {
  constructor(private readonly state: KeptState) {}

  /** Whether `baseUrl` (the setting's text) is to be called as typed. */
  isKept(baseUrl: string): boolean {
    const kept = this.state.get<unknown>(KEPT_BASE_URL_KEY);
    return typeof kept === 'string' && kept === baseUrl && verbatimBaseUrl(baseUrl) !== undefined;
  }

  /** Remembers that `baseUrl` is kept as typed (undefined: nothing is kept; the endpoint rules apply). */
  async remember(baseUrl: string | undefined): Promise<void> {
    if (this.state.get<unknown>(KEPT_BASE_URL_KEY) !== baseUrl) await this.state.update(KEPT_BASE_URL_KEY, baseUrl);
  }
}

export interface BaseUrlPlan {
  /** the address the endpoint rules make of the input; undefined: it cannot be used at all */
  normalized: string | undefined;
  /** why it cannot be used */
  error: EndpointFinding | undefined;
  /** what the user should confirm before the normalised address replaces what they typed */
  warnings: EndpointFinding[];
  /** what they typed, when it can be called as it is and differs from the normalised address */
  keepable: string | undefined;
}

/** What Configure Base URL does with an input: write it normalised, or ask first (and offer to keep it). */
export function planBaseUrl(input: string): BaseUrlPlan {
  const n = normalizeBaseUrl(input);
  const asTyped = verbatimBaseUrl(input);
  return {
    normalized: n.base,
    error: n.base ? undefined : (n.findings.find((f) => f.severity === 'error') ?? n.findings[0]),
    warnings: n.findings.filter((f) => f.severity === 'warn'),
    keepable: n.base && asTyped && asTyped !== n.base ? asTyped : undefined,
  };
}
