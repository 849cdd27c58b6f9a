// Fails when anything under src/gateway imports `vscode`: the core must run in plain Node.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

const offenders = [];
const walk = (dir) => {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p);
    else if (/\.[cm]?ts$/.test(name) && /(from\s+['"]vscode['"]|require\(\s*['"]vscode['"]\s*\)|import\s+['"]vscode['"])/.test(readFileSync(p, 'utf8'))) offenders.push(p);
  }
};
walk('src/gateway');
if (offenders.length) {
  console.error(`src/gateway must not import vscode: ${offenders.join(', ')}`);
  process.exit(1);
}
console.log('core import check: src/gateway has no vscode import');
