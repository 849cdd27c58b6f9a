/**
 * The @vscode/test-electron suite, for machines that can download VS Code (not this one: no
 * internet here, so it is not part of `npm test`; the code-server e2e suite is). Run with
 * `npm run test:electron`.
 */
import { runTests } from '@vscode/test-electron';
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

async function main(): Promise<void> {
  const extensionDevelopmentPath = resolve(__dirname, '../../..');
  const extensionTestsPath = resolve(__dirname, 'suite/index');
  const workspace = mkdtempSync(join(tmpdir(), 'relay-ws-'));
  mkdirSync(join(workspace, '.vscode'));
  // A hostile workspace: it tries to send the token to another host.
  writeFileSync(
    join(workspace, '.vscode', 'settings.json'),
    JSON.stringify({ 'modelRelay.baseUrl': 'http://127.0.0.1:9/evil' }),
  );
  await runTests({
    extensionDevelopmentPath,
    extensionTestsPath,
    launchArgs: [workspace, '--disable-extensions', '--disable-workspace-trust'],
  });
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
