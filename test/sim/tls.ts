/**
 * The simulator over HTTPS, for the certificate tests: a throwaway CA and a server certificate for
 * 127.0.0.1 / localhost made with the `openssl` CLI in a temp dir, and a TLS front on 127.0.0.1
 * that terminates TLS and pipes each connection to the simulator's plain HTTP port. As root, the CA
 * can be put into the system store (`update-ca-certificates`) and taken out again.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type TLSSocket } from 'node:tls';
import { startSimulator, type SimConfig, type Simulator } from './server';

export interface TestCa {
  dir: string;
  /** the CA certificate (PEM file): what a client has to trust */
  caFile: string;
  caPem: string;
  /** a name unique to this CA, also its subject CN */
  id: string;
  serverKey: string;
  serverCert: string;
  cleanup(): void;
}

/** A new CA (valid two days) and a server certificate signed by it for IP 127.0.0.1 and localhost. */
export function makeTestCa(): TestCa {
  const dir = mkdtempSync(join(tmpdir(), 'relay-tls-'));
  const id = `model-relay-test-${randomBytes(6).toString('hex')}`;
  const p = (name: string) => join(dir, name);
  const ssl = (...args: string[]) =>
    execFileSync('openssl', args, { stdio: ['ignore', 'pipe', 'pipe'], timeout: 30_000 });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  ssl(
    'req',
    '-x509',
    ...ec,
    '-keyout',
    p('ca.key'),
    '-out',
    p('ca.crt'),
    '-days',
    '2',
    '-subj',
    `/CN=${id}`,
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  );
  ssl('req', ...ec, '-keyout', p('server.key'), '-out', p('server.csr'), '-subj', '/CN=127.0.0.1');
  writeFileSync(
    p('server.ext'),
    'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n',
  );
  ssl(
    'x509',
    '-req',
    '-in',
    p('server.csr'),
    '-CA',
    p('ca.crt'),
    '-CAkey',
    p('ca.key'),
    '-CAcreateserial',
    '-out',
    p('server.crt'),
    '-days',
    '2',
    '-extfile',
    p('server.ext'),
  );
  return {
    dir,
    caFile: p('ca.crt'),
    caPem: readFileSync(p('ca.crt'), 'utf8'),
    id,
    serverKey: readFileSync(p('server.key'), 'utf8'),
    serverCert: readFileSync(p('server.crt'), 'utf8'),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

export interface TlsFront {
  /** https://127.0.0.1:<port> */
  url: string;
  port: number;
  /** TLS handshakes that completed (a client that refuses the certificate never completes one) */
  handshakes: number;
  close(): Promise<void>;
}

/** Terminates TLS on 127.0.0.1 (a free port) with the CA's server certificate and pipes to `target` (http://127.0.0.1:<port>). */
export async function startTlsFront(target: string, ca: TestCa): Promise<TlsFront> {
  const upstreamPort = Number(new URL(target).port);
  const sockets = new Set<Socket>();
  const track = (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  };
  const front: TlsFront = { url: '', port: 0, handshakes: 0, close: async () => undefined };
  const server = createServer({ key: ca.serverKey, cert: ca.serverCert }, (client: TLSSocket) => {
    front.handshakes++;
    const upstream = connect(upstreamPort, '127.0.0.1');
    track(client);
    track(upstream);
    client.pipe(upstream).pipe(client);
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end);
    upstream.on('error', end);
  });
  server.on('connection', track);
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  front.port = (server.address() as { port: number }).port;
  front.url = `https://127.0.0.1:${front.port}`;
  front.close = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });
  return front;
}

export interface HttpsSimulator {
  sim: Simulator;
  front: TlsFront;
  ca: TestCa;
  /** the HTTPS base URL */
  url: string;
  close(): Promise<void>;
}

/** The simulator behind a TLS front with a fresh CA; `close()` stops both and deletes the CA files. */
export async function startHttpsSimulator(opts: Partial<SimConfig> = {}): Promise<HttpsSimulator> {
  const ca = makeTestCa();
  const sim = await startSimulator(opts);
  const front = await startTlsFront(sim.url, ca);
  return {
    sim,
    front,
    ca,
    url: front.url,
    close: async () => {
      await front.close();
      await sim.close();
      ca.cleanup();
    },
  };
}

const UPDATE_CA = '/usr/sbin/update-ca-certificates';
const LOCAL_CAS = '/usr/local/share/ca-certificates';

/** Whether this process may install a CA into the system store (root, Debian's update-ca-certificates). */
export function canInstallSystemCa(): boolean {
  return process.getuid?.() === 0 && existsSync(UPDATE_CA) && existsSync(LOCAL_CAS);
}

/**
 * Installs the CA into the system store as /usr/local/share/ca-certificates/<id>.crt and returns
 * the function that removes it again (and rebuilds the store with --fresh). Call that in a
 * finally / after hook; the other CA files there are left alone.
 */
export function installSystemCa(ca: TestCa): () => void {
  const file = join(LOCAL_CAS, `${ca.id}.crt`);
  const update = (...args: string[]) =>
    execFileSync(UPDATE_CA, args, { stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 });
  let removed = false;
  const remove = () => {
    if (removed) return;
    removed = true;
    rmSync(file, { force: true });
    update('--fresh');
  };
  copyFileSync(ca.caFile, file);
  try {
    update();
  } catch (e) {
    remove();
    throw e;
  }
  return remove;
}
