// `npm start`: a real VS Code with the extension working against the local gateway simulator.
// With a `code` command on PATH: an Extension Development Host window. Otherwise: code-server on
// 127.0.0.1 (the e2e harness's install), with the demo token stored and the base URL set in that
// instance's own user settings. Ctrl-C stops everything.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '..');
const require = createRequire(import.meta.url);
const run = (cmd, args) => {
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
};

run('npm', ['run', 'package']);
run('npm', ['run', 'compile-tests']);
const { startSimulator } = require(join(root, 'out/test/sim/server.js'));
// demo replies: streamed markdown (heading, list, table, code) in the prompt's language, with usage (test/sim/demo.ts)
const sim = await startSimulator({ port: Number(process.env.SIM_PORT ?? 8787), replies: 'demo' });
const seedEnv = { MODEL_RELAY_SEED_TOKEN: sim.tokens.production, MODEL_RELAY_SEED_TOKEN_NAME: 'local' };
const settings = {
  'modelRelay.baseUrl': sim.url,
  'modelRelay.models.chat': 'gpt-4o-mini',
  'modelRelay.models.native': 'claude-sonnet-4-5',
  'modelRelay.models.image': 'gpt-image-1',
  'modelRelay.models.imageEdit': 'gpt-image-1',
  'modelRelay.models.video': 'sora-2',
  'workbench.startupEditor': 'none',
};
const profile = join(homedir(), '.cache', 'model-relay-vscode', 'start-profile');
mkdirSync(join(profile, 'user-data', 'User'), { recursive: true });
mkdirSync(join(profile, 'user-data', 'Machine'), { recursive: true });
// code-server is a remote: machine-scoped settings (the base URL) are read from Machine/settings.json
writeFileSync(
  join(profile, 'user-data', 'Machine', 'settings.json'),
  JSON.stringify({ 'modelRelay.baseUrl': sim.url }, null, 2),
);
mkdirSync(join(profile, 'extensions'), { recursive: true });
writeFileSync(join(profile, 'user-data', 'User', 'settings.json'), JSON.stringify(settings, null, 2));

let child;
const hasCode = spawnSync('sh', ['-c', 'command -v code'], { encoding: 'utf8' }).status === 0;
if (hasCode && !process.env.MODEL_RELAY_FORCE_CODE_SERVER) {
  console.log(`Simulator at ${sim.url}; opening an Extension Development Host window…`);
  child = spawn(
    'code',
    [
      '--new-window',
      '--user-data-dir',
      join(profile, 'user-data'),
      '--extensions-dir',
      join(profile, 'extensions'),
      `--extensionDevelopmentPath=${root}`,
      root,
    ],
    { stdio: 'inherit', env: { ...process.env, ...seedEnv } },
  );
} else {
  const setup = spawnSync('bash', [join(root, 'test/e2e/setup-code-server.sh')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (setup.status !== 0) process.exit(setup.status ?? 1);
  const paths = Object.fromEntries(
    setup.stdout
      .trim()
      .split('\n')
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
  const cs = ['--user-data-dir', join(profile, 'user-data'), '--extensions-dir', join(profile, 'extensions')];
  run(paths.NODE24, [paths.CODE_SERVER, ...cs, '--install-extension', join(root, 'model-relay.vsix'), '--force']);
  const port = Number(process.env.CODE_SERVER_PORT ?? 8080);
  child = spawn(
    paths.NODE24,
    [
      paths.CODE_SERVER,
      ...cs,
      '--bind-addr',
      `127.0.0.1:${port}`,
      '--auth',
      'none',
      '--disable-telemetry',
      '--disable-update-check',
      '--disable-workspace-trust',
      root,
    ],
    { stdio: 'ignore', detached: true, env: { ...process.env, ...seedEnv } },
  );
  console.log(
    `\nModel Relay is running in code-server: open http://127.0.0.1:${port}/?folder=${encodeURIComponent(root)}`,
  );
  console.log(
    `Gateway simulator: ${sim.url} (demo token stored as "local"; base URL set in that instance's user settings; chat answers with demo replies)`,
  );
  console.log('Ctrl-C stops both.');
}
const stop = async () => {
  if (child?.pid && child.exitCode === null) {
    try {
      process.kill(hasCode ? child.pid : -child.pid, 'SIGTERM');
    } catch {
      /* gone */
    }
  }
  await sim.close();
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
child.on('exit', () => void stop());
