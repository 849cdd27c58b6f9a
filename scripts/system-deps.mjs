#!/usr/bin/env node
/**
 * The system packages the Node tests drive for real: Debian's nginx (a buffering proxy in front of
 * the simulator) and tinyproxy (an HTTP proxy). Run by `npm run test:unit` before anything else, so
 * that a first `npm test` on a fresh machine runs those tests too instead of skipping them:
 * - both present: nothing to do, nothing printed;
 * - missing, and this user may install (root, or passwordless sudo) with apt-get: installs them
 *   (non-interactive, bounded by apt's lock timeout);
 * - otherwise: one loud line naming the tests that will be skipped and the one command that enables
 *   them, and the tests go on (they skip themselves with a note; under CI=true they fail instead).
 * MODEL_RELAY_NO_SYSTEM_INSTALL=1 never installs (prints the line instead).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const PACKAGES = [
  {
    name: 'nginx-light',
    tests: 'the buffering-proxy tests (test/chat/nginx-buffering)',
    present: () => ['/usr/sbin/nginx', '/usr/local/sbin/nginx'].some((p) => existsSync(p)),
  },
  {
    name: 'tinyproxy',
    tests: 'the HTTP proxy tests (test/gateway/proxy, test/gateway/tls)',
    present: () => onPath('tinyproxy'),
  },
];

function onPath(cmd) {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;
}

function run(argv) {
  const r = spawnSync(argv[0], argv.slice(1), {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    timeout: 15 * 60_000,
  });
  return r.status === 0;
}

let missing = PACKAGES.filter((p) => !p.present());
if (missing.length === 0) process.exit(0);

const names = () => missing.map((p) => p.name).join(' ');
const command = () => `sudo apt-get install -y --no-install-recommends ${names()}`;
const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
const sudo = isRoot ? [] : spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status === 0 ? ['sudo', '-n'] : null;
const mayInstall = sudo !== null && onPath('apt-get') && process.env.MODEL_RELAY_NO_SYSTEM_INSTALL !== '1';

if (mayInstall) {
  console.error(`[system-deps] installing ${names()} for the proxy tests (apt-get)…`);
  const ok =
    run([...sudo, 'apt-get', 'update', '-qq']) &&
    run([
      ...sudo,
      'apt-get',
      'install',
      '-y',
      '-qq',
      '-o',
      'DPkg::Lock::Timeout=600',
      '--no-install-recommends',
      ...missing.map((p) => p.name),
    ]);
  const installed = names();
  missing = missing.filter((p) => !p.present());
  if (ok && missing.length === 0) {
    console.error(`[system-deps] installed ${installed}`);
    process.exit(0);
  }
}

const bar = '!'.repeat(100);
console.error(
  `${bar}\n!! SKIPPING ${missing.map((p) => p.tests).join(' and ')}: ${names()} not installed. Enable them with: ${command()}\n${bar}`,
);
