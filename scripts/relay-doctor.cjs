#!/usr/bin/env node
// `npx relay-doctor` from a clone: builds dist/cli.js (and its core, dist/cli-core.js) when missing
// (progress on stderr), then runs it in this same process (one Node start-up, not two).
const { existsSync } = require('node:fs');
const { join } = require('node:path');
const { spawnSync } = require('node:child_process');

const root = join(__dirname, '..');
const cli = join(root, 'dist', 'cli.js');
if (!existsSync(cli) || !existsSync(join(root, 'dist', 'cli-core.js'))) {
  const built = spawnSync(process.execPath, [join(root, 'scripts', 'build.mjs')], {
    cwd: root,
    stdio: ['ignore', 2, 2],
  });
  if (built.status !== 0) process.exit(built.status ?? 1);
}
require(cli)
  .run(process.argv.slice(2))
  .then((code) => {
    process.exitCode = code;
  });
