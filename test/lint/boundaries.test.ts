/**
 * The layer boundaries are ESLint rules (eslint.config.mjs); these tests lint real files, once as
 * they are and once with a forbidden import added, so the rules are proven to bite and not to
 * misfire.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';

const root = resolve(__dirname, '../../..');
/**
 * The probes lint text that differs from the file on disk. With CI=true typescript-eslint infers a
 * single run and builds its type-aware program from the files on disk, so a probe would be linted as
 * the file without its forbidden import (CI reported nothing for the first probe of each file). The
 * probes therefore run the real config without type information: the import and size rules don't
 * need it, and `npm run lint` runs the type-aware rules on the real files.
 */
const eslint = new ESLint({
  cwd: root,
  overrideConfig: { files: ['**/*.ts'], ...tseslint.configs.disableTypeChecked },
});

async function ruleIds(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(root, filePath) });
  return (result?.messages ?? []).map((m) => m.ruleId ?? `fatal: ${m.message}`);
}

function source(filePath: string): string {
  return readFileSync(join(root, filePath), 'utf8');
}

const IMPORT_RULES = ['no-restricted-imports', '@typescript-eslint/no-restricted-imports'];
const isImportBan = (ids: string[]) => ids.some((id) => IMPORT_RULES.includes(id));

const forbidden: Array<{ file: string; line: string; why: string }> = [
  {
    file: 'src/gateway/mask.ts',
    line: "import * as vscode from 'vscode';\nexport const v = vscode;",
    why: 'the core imports vscode',
  },
  {
    file: 'src/gateway/mask.ts',
    line: "import { readSettings } from '../extension/gateways/settings';\nexport const r = readSettings;",
    why: 'the core imports the extension',
  },
  {
    file: 'src/gateway/http/transport.ts',
    line: "import { main } from '../../cli/main';\nexport const m = main;",
    why: 'the core imports the CLI',
  },
  {
    file: 'src/gateway/mask.ts',
    line: "import type { HostToWebview } from '../shared/chatProtocol';\nexport type H = HostToWebview;",
    why: 'the core imports shared',
  },
  {
    file: 'src/webview/main.ts',
    line: "import { readFileSync } from 'node:fs';\nexport const f = readFileSync;",
    why: 'the webview imports node:fs',
  },
  {
    file: 'src/webview/main.ts',
    line: "import { request } from 'undici';\nexport const q = request;",
    why: 'the webview imports undici',
  },
  {
    file: 'src/webview/main.ts',
    line: "import { maskToken } from '../gateway/mask';\nexport const k = maskToken;",
    why: 'the webview imports the core',
  },
  {
    file: 'src/webview/main.ts',
    line: "import * as path from 'path';\nexport const p = path;",
    why: 'the webview imports a Node builtin without node:',
  },
  {
    file: 'src/shared/chatProtocol.ts',
    line: "import { maskToken } from '../gateway/mask';\nexport const k2 = maskToken;",
    why: 'shared imports a core value',
  },
  {
    file: 'src/cli/main.ts',
    line: "import * as vscode from 'vscode';\nexport const v2 = vscode;",
    why: 'the CLI imports vscode',
  },
  {
    file: 'src/extension/extension.ts',
    line: "import { GatewayClient } from '../gateway';\nexport const g = GatewayClient;",
    why: 'activation code imports the core',
  },
  {
    file: 'src/extension/extension.ts',
    line: "import { GatewayService } from './gatewayService';\nexport const s = GatewayService;",
    why: 'activation code imports the main part',
  },
  {
    file: 'src/extension/lazy/delegates.ts',
    line: "import { z } from 'zod';\nexport const zz = z;",
    why: 'activation code imports zod',
  },
  {
    file: 'src/extension/lazy/hub.ts',
    line: "import { TokenStore } from '../gateways/tokenStore';\nexport const ts = TokenStore;",
    why: 'activation code imports a feature of the main part',
  },
  {
    file: 'src/extension/lazy/hub.ts',
    line: "import { errorMarkdown } from '../../host/errorWords';\nexport const em = errorMarkdown;",
    why: 'activation code imports src/host beyond commandIds',
  },
];

for (const f of forbidden) {
  test(`lint fails when ${f.why} (${f.file})`, async () => {
    const ids = await ruleIds(f.file, `${f.line}\n${source(f.file)}`);
    assert.ok(isImportBan(ids), `expected an import ban, got: ${ids.join(', ') || 'nothing'}`);
  });
}

test('lint fails when a host-side plain-Node file imports vscode', async () => {
  const file = 'src/host/errorWords.ts';
  const ids = await ruleIds(file, `import * as vscode from 'vscode';\nexport const v = vscode;\n${source(file)}`);
  assert.ok(isImportBan(ids), ids.join(', '));
});

test("shared may import the core's types", async () => {
  const file = 'src/shared/modelOrder.ts';
  const ids = await ruleIds(
    file,
    `import type { ErrorKind } from '../gateway/errors/gatewayError';\nexport type K = ErrorKind;\n${source(file)}`,
  );
  assert.deepEqual(ids, []);
});

test('activation code may import types from the main part', async () => {
  const file = 'src/extension/lazy/hub.ts';
  const ids = await ruleIds(
    file,
    `import type { TokenStore } from '../gateways/tokenStore';\nexport type TS = TokenStore;\n${source(file)}`,
  );
  assert.ok(!isImportBan(ids), ids.join(', '));
});

test('the unmodified files pass the boundary rules', async () => {
  for (const file of new Set(forbidden.map((f) => f.file))) {
    const ids = await ruleIds(file, source(file));
    assert.ok(!isImportBan(ids), `${file}: ${ids.join(', ')}`);
  }
});

test('a function over 80 lines fails; a file has no size rule (its length is a prompt to look, not a limit)', async () => {
  // Linted as the text of an existing file, so the folder's rules apply.
  const probe = 'src/gateway/mask.ts';
  const longFunction = `export function f(): number {\n  let n = 0;\n${'  n++;\n'.repeat(80)}  return n;\n}\n`;
  assert.ok((await ruleIds(probe, longFunction)).includes('max-lines-per-function'));
  const [long] = await eslint.lintText('export const a = 1;\n'.repeat(401), { filePath: join(root, probe) });
  assert.deepEqual(
    long?.messages.map((m) => m.ruleId),
    [],
    'a 401-line file is not flagged',
  );
  const fine = `export function f(): number {\n  let n = 0;\n${'  n++;\n'.repeat(70)}  return n;\n}\n`;
  assert.deepEqual(await ruleIds(probe, fine), []);
});
