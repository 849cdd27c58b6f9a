#!/usr/bin/env node
// `npx relay-doctor` from a clone: builds dist/cli.js when it is missing (progress on stderr), then runs it.
const { existsSync } = require('node:fs');
const { join } = require('node:path');
const { spawnSync } = require('node:child_process');

const root = join(__dirname, '..');
const cli = join(root, 'dist', 'cli.js');
if (!existsSync(cli)) {
  const built = spawnSync(process.execPath, [join(root, 'scripts', 'build.mjs')], { cwd: root, stdio: ['ignore', 2, 2] });
  if (built.status !== 0) process.exit(built.status ?? 1);
}
const run = spawnSync(process.execPath, [cli, ...process.argv.slice(2)], { stdio: 'inherit' });
process.exit(run.status ?? 1);
