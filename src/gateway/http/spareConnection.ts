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
 * spare over instead of connecting, or, while the spare's handshake is still under way, waits for it.
 *
 * Nothing is sent on a spare: no request, no token; only the handshake. A spare lives at most
 * {@link SPARE_TTL_MS} (below the idle limits servers put on a connection that has not sent a request:
 * Node's 5 s keep-alive, nginx's 60 s header timeout) and is never handed over once it was closed,
 * ended or sent anything; it does not keep the process alive. One per origin, a bounded number of
 * origins. Proxied requests go through the proxy agent's tunnels and get no spare.
 */
import type { Socket } from 'node:net';
import { Dispatcher, errors, Pool, type buildConnector } from 'undici';
import type PoolStats from 'undici/types/pool-stats';

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
  /**
   * connections undici asked for while the spare's handshake was under way: the first gets the
   * socket, or the spare's error (the same options would fail alike); any other connects anew
   */
  waiting?: Array<(got?: { socket: Socket } | { error: Error }) => void>;
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

  /**
   * undici's `connect` option: a usable spare for these options; the spare still in its handshake
   * (the connection asked for is the one it is making: undici's client reconnects as soon as an
   * aborted request's socket closes, while the spare the engine asked for is on its way, and over
   * TLS that made two handshakes per aborted suggestion); else a new connection.
   */
  readonly connector: Connector = (opts, callback) => {
    if (opts.httpSocket) return this.connect(opts, callback);
    const key = keyOf(opts);
    const opening = this.spares.get(key);
    if (opening && !opening.socket) {
      (opening.waiting ??= []).push((got) => {
        if (!got) return this.connect(opts, callback);
        if ('error' in got) return callback(got.error, null);
        this.counts.handedOver++;
        callback(null, got.socket);
      });
      return;
    }
    const spare = this.take(key);
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
        const waiting = spare.waiting;
        spare.waiting = undefined;
        const [first, ...rest] = waiting ?? [];
        for (const w of rest) w(); // connected anew
        if (err || !socket) {
          if (this.spares.get(key) === spare) this.spares.delete(key);
          first?.({ error: err ?? new Error('the connection could not be made') });
          return;
        }
        if (this.spares.get(key) !== spare) {
          // dropped while opening (the agent closed, or a newer spare took its place)
          socket.destroy();
          first?.();
          return;
        }
        if (!first) return this.keep(key, spare, socket);
        this.spares.delete(key);
        first({ socket });
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

/** At most this many origins keep a pool (beyond it, the least recently used idle one is closed). */
const MAX_ORIGINS = 16;

/**
 * An undici agent over `connect` that keeps one pool per origin and can open a spare connection
 * ahead of a request ({@link preconnect}).
 *
 * undici's own `Agent` closes an origin's pool when its last connection closes, and a suggestion
 * superseded by typing closes its connection (two requests in three in the keystroke bench). The
 * closing pool's client then connected once more, taking the spare, and the next request built a new
 * pool and client and opened a connection of its own: a handshake on the request's path after every
 * aborted suggestion, and two connections per request. Here a pool stays for the agent's life and
 * its client reconnects when a request comes, through the spare when there is one. Pools are bounded
 * ({@link MAX_ORIGINS}); an idle one holds no socket once undici's keep-alive timeout has passed.
 */
export class WarmAgent extends Dispatcher {
  readonly spares: SpareConnections;
  private readonly options: Pool.Options;
  /** by origin, least recently used first */
  private readonly pools = new Map<string, Pool>();
  private state: 'open' | 'closed' | 'destroyed' = 'open';

  constructor(connect: Connector, options: Omit<Pool.Options, 'connect'> = {}) {
    super();
    this.spares = new SpareConnections(connect);
    this.options = { ...options, connect: this.spares.connector };
    registerPreconnect(this, (origin) => {
      if (this.state !== 'open') return;
      if ((this.pools.get(origin.origin)?.stats.free ?? 0) > 0) return;
      this.spares.prepare(origin);
    });
  }

  /** Each origin's pool statistics, as undici's Agent gives them. */
  get stats(): Record<string, PoolStats> {
    return Object.fromEntries([...this.pools].map(([origin, pool]) => [origin, pool.stats]));
  }

  override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    if (this.state === 'destroyed') throw new errors.ClientDestroyedError();
    if (this.state === 'closed') throw new errors.ClientClosedError();
    const o = options.origin;
    if (!o || (typeof o !== 'string' && !(o instanceof URL)))
      throw new errors.InvalidArgumentError('opts.origin must be a non-empty string or URL.');
    const key = typeof o === 'string' ? o : o.origin;
    let pool = this.pools.get(key);
    if (pool) {
      this.pools.delete(key); // most recently used last
      this.pools.set(key, pool);
    } else {
      pool = this.poolFor(key);
      this.pools.set(key, pool);
      this.trim(); // only a new origin can pass the bound
    }
    return pool.dispatch(options, handler);
  }

  private poolFor(origin: string): Pool {
    const pool = new Pool(origin, this.options);
    // the pool's events, told as undici's Agent tells them (this agent first among the targets)
    pool.on('connect', (url, targets) => this.emit('connect', url, [this, ...targets]));
    pool.on('disconnect', (url, targets, err) => this.emit('disconnect', url, [this, ...targets], err));
    pool.on('connectionError', (url, targets, err) => this.emit('connectionError', url, [this, ...targets], err));
    pool.on('drain', (url) => this.emit('drain', url));
    return pool;
  }

  /** Closes the least recently used idle pools beyond {@link MAX_ORIGINS} (a busy one is kept). */
  private trim(): void {
    for (const [origin, pool] of this.pools) {
      if (this.pools.size <= MAX_ORIGINS) return;
      const st = pool.stats;
      if (st.running > 0 || st.pending > 0 || st.queued > 0) continue;
      this.pools.delete(origin);
      void pool.close().catch(() => {});
    }
  }

  override close(): Promise<void>;
  override close(callback: () => void): void;
  override close(callback?: () => void): Promise<void> | void {
    if (this.state === 'open') this.state = 'closed';
    this.spares.clear();
    const done = Promise.all([...this.pools.values()].map((p) => p.close())).then(() => undefined);
    if (!callback) return done;
    void done.then(callback, callback);
  }

  override destroy(): Promise<void>;
  override destroy(err: Error | null): Promise<void>;
  override destroy(err: Error | null, callback: () => void): void;
  override destroy(callback: () => void): void;
  override destroy(a?: Error | null | (() => void), b?: () => void): Promise<void> | void {
    this.state = 'destroyed';
    this.spares.clear();
    const err = typeof a === 'function' ? null : (a ?? null);
    const done = Promise.all([...this.pools.values()].map((p) => p.destroy(err))).then(() => undefined);
    const callback = typeof a === 'function' ? a : b;
    if (!callback) return done;
    void done.then(callback, callback);
  }
}
