// E2E for the contribution wiring in the real host: every command Model Relay's package.json
// contributes is executed (the hidden ones too) by the fixture extension fixtures/contrib-driver from
// inside the extension host, with arguments where a command takes one; a quick pick, input box or
// dialog it opens is cancelled. None may end in "command not found" or in Model Relay's own "not
// available" (a stand-in with no implementation). Then every contributed view is focused: each must
// show its provider's content, never VS Code's "no data provider registered".
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startScenario } from './harness.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const pkg = JSON.parse(readFileSync(join(here, '../../package.json'), 'utf8'));
const outDir = mkdtempSync(join(tmpdir(), 'relay-contrib-driver-'));
const outFile = join(outDir, 'outcome.json');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

let scenario;
let vs;
let outcome;

before(async () => {
  scenario = await startScenario({
    extraExtensions: [join(here, 'fixtures/contrib-driver')],
    settings: { 'contribDriver.outFile': outFile },
    files: { 'notes.md': '# notes\n' },
  });
  ({ vs } = scenario);
  await vs.waitForText('Relay: production', 90_000);
  await vs.runCommand('Contribution Driver: Run Every Model Relay Command');
  // Dialogs a command opens (they block the call) are dismissed from here; quick inputs by the driver.
  const end = Date.now() + 10 * 60_000;
  while (!existsSync(outFile)) {
    if (Date.now() > end) throw new Error('the driver did not finish within 10 minutes');
    const dialog = vs.page.locator('.monaco-dialog-box').first();
    if (await dialog.isVisible().catch(() => false)) await vs.page.keyboard.press('Escape');
    await sleep(500);
  }
  outcome = JSON.parse(readFileSync(outFile, 'utf8'));
});

after(async () => {
  await scenario?.stop();
  rmSync(outDir, { recursive: true, force: true });
});

test('every contributed command runs: none is "not found" or "not available"', async (t) => {
  assert.equal(outcome.error, undefined);
  for (const r of outcome.commands)
    t.diagnostic(`${r.id}: ${r.settled}${r.message ? ` (${r.message})` : ''}, ${r.ms} ms`);
  assert.deepEqual(
    outcome.commands.map((r) => r.id),
    pkg.contributes.commands.map((c) => c.command),
  );
  const broken = outcome.commands.filter(
    (r) => r.settled === 'rejected' && /not found|not available|is not contributed/i.test(r.message),
  );
  assert.deepEqual(broken, [], JSON.stringify(outcome.commands, null, 1));
  await vs.screenshot('contributions-01-after-every-command');
});

test('every contributed view has a provider: it shows content, not "no data provider"', async () => {
  const views = Object.values(pkg.contributes.views).flat();
  assert.deepEqual(
    outcome.views.map((r) => r.id),
    views.map((v) => `${v.id}.focus`),
  );
  for (const r of outcome.views) assert.notEqual(r.settled, 'rejected', JSON.stringify(r));
  await sleep(1000);
  assert.equal(await vs.page.getByText('no data provider registered').count(), 0);
  // The Status view shows its rows (the simulator's endpoint and the seeded token).
  await vs.page.locator('.pane-body', { hasText: 'production' }).first().waitFor({ timeout: 30_000 });
  await vs.screenshot('contributions-02-every-view');
});
