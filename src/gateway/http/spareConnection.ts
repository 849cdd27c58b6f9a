/**
 * One warm spare connection per gateway, for requests that must not wait for a handshake.
 *
 * An inline suggestion superseded by more typing is aborted, and over HTTP/1.1 that closes its
 * socket: the next suggestion would start with a TCP (and TLS) handshake — on a remote gateway one to
 * three round trips, the largest part of the latency our code adds. So the caller that knows a
 * request is coming (the completion engine, when its debounce starts) asks for a connection ahead of
 * it: {@link preconnect} opens one through the agent's own connector — the same trust, TLS options
 * and server name as any request of this agent — unless the agent already holds a free one for that
 * origin. The next time undici's pool needs a new connection to the origin, the connector hands the
 * spare over instead of connecting.
 *
 * Nothing is sent on a spare: no request, no token; only the handshake. A spare lives at most
 * {@link SPARE_TTL_MS} (below the idle limits servers put on a connection that has not sent a request:
 * Node's 5 s keep-alive, nginx's 60 s header timeout) and is never handed over once it was closed,
 * ended or sent anything; it does not keep the process alive. One per origin, a bounded number of
 * origins. Proxied requests go through the proxy agent's tunnels and get no spare.
 */
import type { Socket } from 'node:net';
import { Agent, type buildConnector, type Dispatcher } from 'undici';

/** How long an unused spare is kept before it is closed. */
export const SPARE_TTL_MS = 4_000;
/** At most this many origins hold a spare at once (the oldest is closed first). */
const MAX_SPARES = 8;

type Connector = buildConnector.connector;
type ConnectOptions = buildConnector.Options;

interface Spare {
  socket?: Socket;
  /** when the handshake started */
  at: number;
  timer?: ReturnType<typeof setTimeout>;
  /** listeners that drop the spare if its connection ends before it is used */
  watchers?: Array<[string, (...args: unknown[]) => void]>;
}

const defaultPort = (protocol: string) => (protocol === 'https:' ? '443' : '80');

/** What tells two connections apart for undici's connector: the same key, the same connection. */
function keyOf(o: Pick<ConnectOptions, 'protocol' | 'hostname' | 'port' | 'servername' | 'localAddress'>): string {
  const port = String(o.port || defaultPort(o.protocol));
  return `${o.protocol}//${o.hostname}:${port}|${o.servername ?? ''}|${o.localAddress ?? ''}`;
}

/** The connect options undici's client passes for `origin` (its own server name and local address unset). */
function optionsOf(origin: URL): ConnectOptions {
  const hostname = origin.hostname.startsWith('[') ? origin.hostname.slice(1, -1) : origin.hostname;
  return {
    protocol: origin.protocol,
    hostname,
    host: origin.host,
    port: origin.port || defaultPort(origin.protocol),
    servername: null,
    localAddress: null,
  } as unknown as ConnectOptions;
}

/** A connector that hands over a prepared spare connection before it connects anew. */
export class SpareConnections {
  private readonly spares = new Map<string, Spare>();
  /** handed over / prepared / closed unused: for tests and the bench */
  readonly counts = { prepared: 0, handedOver: 0, expired: 0 };

  constructor(
    private readonly connect: Connector,
    private readonly ttlMs = SPARE_TTL_MS,
  ) {}

  /** undici's `connect` option: a usable spare for these options, else a new connection. */
  readonly connector: Connector = (opts, callback) => {
    const spare = opts.httpSocket ? undefined : this.take(keyOf(opts));
    if (!spare) return this.connect(opts, callback);
    this.counts.handedOver++;
    // undici expects the callback after connect() returns, as a real handshake would
    queueMicrotask(() => callback(null, spare));
  };

  /** Opens a spare connection to `origin` unless one is ready or on its way. Never throws. */
  prepare(origin: URL): void {
    const opts = optionsOf(origin);
    const key = keyOf(opts);
    const had = this.spares.get(key);
    if (had && (!had.socket || this.usable(had))) return;
    if (had) this.drop(key, had);
    if (this.spares.size >= MAX_SPARES) {
      const [oldestKey, oldest] = this.spares.entries().next().value!;
      this.drop(oldestKey, oldest);
    }
    const spare: Spare = { at: Date.now() };
    this.spares.set(key, spare);
    this.counts.prepared++;
    try {
      this.connect(opts, (err, socket) => {
        if (err || !socket) {
          if (this.spares.get(key) === spare) this.spares.delete(key);
          return;
        }
        if (this.spares.get(key) !== spare) {
          socket.destroy();
          return;
        }
        this.keep(key, spare, socket);
      });
    } catch {
      this.spares.delete(key);
    }
  }

  /** Closes every spare (the agent is closing). */
  clear(): void {
    for (const [key, spare] of [...this.spares]) this.drop(key, spare);
  }

  /** How many spares are open or opening (bounded by MAX_SPARES). */
  get size(): number {
    return this.spares.size;
  }

  private keep(key: string, spare: Spare, socket: Socket): void {
    spare.socket = socket;
    // an idle spare must not keep a CLI (or a test) running
    socket.unref();
    const lost = () => this.drop(key, spare);
    // (no 'data' listener: it would put the socket in flowing mode before undici reads it)
    spare.watchers = [
      ['close', lost],
      ['end', lost],
      ['error', lost],
    ];
    for (const [event, fn] of spare.watchers) socket.on(event, fn);
    const remaining = Math.max(0, this.ttlMs - (Date.now() - spare.at));
    spare.timer = setTimeout(() => {
      this.counts.expired++;
      this.drop(key, spare);
    }, remaining);
    spare.timer.unref();
  }

  private usable(spare: Spare): boolean {
    const s = spare.socket;
    return (
      !!s &&
      !s.destroyed &&
      s.readyState === 'open' &&
      !s.readableEnded &&
      !s.writableEnded &&
      // a server that spoke first (an error page, a close notice) is not a connection to reuse
      s.readableLength === 0 &&
      Date.now() - spare.at < this.ttlMs
    );
  }

  /** The ready spare for `key` (removed from the set, its watchers off), or undefined. */
  private take(key: string): Socket | undefined {
    const spare = this.spares.get(key);
    if (!spare?.socket) return undefined;
    if (!this.usable(spare)) {
      this.drop(key, spare);
      return undefined;
    }
    this.spares.delete(key);
    this.release(spare);
    spare.socket.ref();
    return spare.socket;
  }

  private release(spare: Spare): void {
    clearTimeout(spare.timer);
    for (const [event, fn] of spare.watchers ?? []) spare.socket?.off(event, fn);
    spare.watchers = undefined;
  }

  private drop(key: string, spare: Spare): void {
    if (this.spares.get(key) === spare) this.spares.delete(key);
    this.release(spare);
    // a connection still opening is closed when its handshake ends (it is no longer in the set)
    spare.socket?.on('error', () => {}).destroy();
  }
}

/** The free connections an agent holds for `origin` (undici's pool statistics; 0 when unknown). */
function freeConnections(agent: Agent, origin: string): number {
  const stats = (agent as unknown as { stats?: Record<string, { free?: number }> }).stats;
  return stats?.[origin]?.free ?? 0;
}

const preconnectors = new WeakMap<Dispatcher, (origin: URL) => void>();

/** Says how `dispatcher` opens a connection ahead of a request (a router delegates to its direct agent). */
export function registerPreconnect(dispatcher: Dispatcher, fn: (origin: URL) => void): void {
  preconnectors.set(dispatcher, fn);
}

/**
 * Opens a connection to `origin` ahead of a request, when `dispatcher` can (an agent made by
 * {@link warmAgent}, or a router over one) and holds no free one. Never throws, never sends a request.
 */
export function preconnect(dispatcher: Dispatcher, origin: string | URL): void {
  const fn = preconnectors.get(dispatcher);
  if (!fn) return;
  try {
    fn(typeof origin === 'string' ? new URL(origin) : origin);
  } catch {
    /* an origin that does not parse: the request itself will say so */
  }
}

/** An undici agent over `connect` that can open a spare connection ahead of a request ({@link preconnect}). */
export class WarmAgent extends Agent {
  readonly spares: SpareConnections;

  constructor(connect: Connector, options: Omit<Agent.Options, 'connect'> = {}) {
    const spares = new SpareConnections(connect);
    super({ ...options, connect: spares.connector });
    this.spares = spares;
    registerPreconnect(this, (origin) => {
      if (this.closed || this.destroyed) return;
      if (freeConnections(this, origin.origin) > 0) return;
      spares.prepare(origin);
    });
  }

  override close(): Promise<void>;
  override close(callback: () => void): void;
  override close(callback?: () => void): Promise<void> | void {
    this.spares.clear();
    return callback ? super.close(callback) : super.close();
  }

  override destroy(): Promise<void>;
  override destroy(err: Error | null): Promise<void>;
  override destroy(err: Error | null, callback: () => void): void;
  override destroy(callback: () => void): void;
  override destroy(a?: Error | null | (() => void), b?: () => void): Promise<void> | void {
    this.spares.clear();
    if (typeof a === 'function') return super.destroy(a);
    if (b) return super.destroy(a ?? null, b);
    return super.destroy(a ?? null);
  }
}
