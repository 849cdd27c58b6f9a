/**
 * Which certificate authorities the core trusts: Node's bundled roots, the operating system's store
 * (as VS Code does with `http.systemCertificates`, default on) and the PEM file named by
 * NODE_EXTRA_CA_CERTS. A gateway behind a TLS-inspecting proxy or with an internal CA works once its
 * CA is in the system store. Passing `ca` replaces Node's default store (NODE_EXTRA_CA_CERTS
 * included), so all three are listed here; one secure context per trust set is built and cached.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import * as tls from 'node:tls';
import { buildConnector } from 'undici';
import { t } from '../l10n';
import { WarmAgent } from './spareConnection';

export interface TrustSettings {
  /** VS Code's `http.systemCertificates` (default true): trust the operating system's store too */
  systemCertificates?: boolean | undefined;
  /** where to look for the system bundle, first existing file wins (tests point this at a temp file) */
  systemCaFiles?: readonly string[] | undefined;
  /** the environment to read NODE_EXTRA_CA_CERTS from */
  env?: Record<string, string | undefined>;
}

/** The system bundle's usual places: Debian/Ubuntu, Fedora/RHEL, openSUSE, macOS/Alpine, older RHEL. */
export const SYSTEM_CA_FILES: readonly string[] = [
  '/etc/ssl/certs/ca-certificates.crt',
  '/etc/pki/tls/certs/ca-bundle.crt',
  '/etc/ssl/ca-bundle.pem',
  '/etc/ssl/cert.pem',
  '/etc/pki/tls/cacert.pem',
  '/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem',
];

/** A bundle larger than this is not read. */
const MAX_BUNDLE_BYTES = 8 * 1024 * 1024;

export interface TrustSummary {
  /** certificates from the system store (0 when off or not found) */
  system: number;
  /** where they came from: Node's system store reader, a bundle file, or nothing */
  systemSource: string | undefined;
  /** certificates from NODE_EXTRA_CA_CERTS */
  extra: number;
  extraFile: string | undefined;
  /** why NODE_EXTRA_CA_CERTS could not be used */
  extraProblem?: string | undefined;
}

const PEM = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

function readPem(file: string): string[] {
  if (statSync(file).size > MAX_BUNDLE_BYTES) throw new Error(`larger than ${MAX_BUNDLE_BYTES} bytes`);
  return readFileSync(file, 'utf8').match(PEM) ?? [];
}

type GetCa = (type: 'system' | 'default' | 'bundled' | 'extra') => string[];

const systemCache = new Map<string, { certs: string[]; source: string | undefined }>();

/** The system store's certificates, read once per process (per list of candidate files). */
export function systemCertificates(files?: readonly string[]): { certs: string[]; source: string | undefined } {
  const key = files ? files.join('\n') : '';
  const cached = systemCache.get(key);
  if (cached) return cached;
  let found: { certs: string[]; source: string | undefined } = { certs: [], source: undefined };
  const getCa = (tls as unknown as { getCACertificates?: GetCa }).getCACertificates;
  if (!files && typeof getCa === 'function') {
    try {
      found = { certs: getCa('system'), source: 'tls.getCACertificates' };
    } catch {
      /* fall back to the bundle files */
    }
  }
  if (!found.certs.length) {
    for (const f of files ?? SYSTEM_CA_FILES) {
      try {
        if (!existsSync(f)) continue;
        found = { certs: readPem(f), source: f };
        break;
      } catch {
        /* unreadable or too large: try the next */
      }
    }
  }
  systemCache.set(key, found);
  return found;
}

function extraCertificates(env: Record<string, string | undefined>): {
  certs: string[];
  file: string | undefined;
  problem?: string;
} {
  const file = env.NODE_EXTRA_CA_CERTS?.trim() || undefined;
  if (!file) return { certs: [], file };
  try {
    const certs = readPem(file);
    return certs.length ? { certs, file } : { certs, file, problem: t('it holds no PEM certificate') };
  } catch (e) {
    return { certs: [], file, problem: (e as { code?: string }).code ?? (e instanceof Error ? e.message : String(e)) };
  }
}

/** What is trusted beyond Node's bundled roots, for display. */
export function describeTrust(s: TrustSettings): TrustSummary {
  const sys = s.systemCertificates === false ? { certs: [], source: undefined } : systemCertificates(s.systemCaFiles);
  const extra = extraCertificates(s.env ?? process.env);
  return {
    system: sys.certs.length,
    systemSource: sys.source,
    extra: extra.certs.length,
    extraFile: extra.file,
    ...(extra.problem ? { extraProblem: extra.problem } : {}),
  };
}

/** Every trusted CA certificate (PEM): Node's roots, the system store (unless off), NODE_EXTRA_CA_CERTS. */
export function trustedCertificates(s: TrustSettings): string[] {
  const sys = s.systemCertificates === false ? [] : systemCertificates(s.systemCaFiles).certs;
  return [...new Set([...tls.rootCertificates, ...sys, ...extraCertificates(s.env ?? process.env).certs])];
}

const contexts = new Map<string, tls.SecureContext>();

/**
 * One secure context holding {@link trustedCertificates}, for every TLS connection the core makes:
 * built once per trust set (the system store is read once per process; parsing a few hundred
 * certificates per connection would be slow).
 */
export function trustContext(s: TrustSettings): tls.SecureContext {
  const env = s.env ?? process.env;
  const key = [
    s.systemCertificates !== false,
    s.systemCaFiles?.join('\n') ?? '',
    env.NODE_EXTRA_CA_CERTS?.trim() ?? '',
  ].join('\0');
  let ctx = contexts.get(key);
  if (!ctx) {
    ctx = tls.createSecureContext({ ca: trustedCertificates(s) });
    contexts.set(key, ctx);
  }
  return ctx;
}

/**
 * undici's connector with that trust — built on the first https connection, so a plain-http gateway
 * (and a process that never connects) never reads the system store.
 */
export function trustingConnector(s: TrustSettings, rejectUnauthorized = true): buildConnector.connector {
  let plain: buildConnector.connector | undefined;
  let secure: buildConnector.connector | undefined;
  return (opts, callback) => {
    if (opts.protocol === 'https:')
      return (secure ??= buildConnector({ rejectUnauthorized, secureContext: trustContext(s) }))(opts, callback);
    return (plain ??= buildConnector({}))(opts, callback);
  };
}

/**
 * A direct agent (no proxy) that trusts {@link trustedCertificates}: the fallback when a caller gives
 * no dispatcher. It can open a connection ahead of a request (spareConnection.ts).
 */
export function trustingAgent(s: TrustSettings = {}): WarmAgent {
  return new WarmAgent(trustingConnector(s));
}
