/**
 * Both languages stay whole: every runtime string key (`t('…')`, `l10n.t('…')`, `vscode.l10n.t('…')`
 * in src/) has a Chinese translation in l10n/zh-cn/*.json and every translation has a key, with the
 * same placeholders; every contributed string in package.json is a `%key%` defined in both
 * package.nls.json and package.nls.zh-cn.json, and the two files hold the same keys.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';

const root = resolve(__dirname, '../../..');
const read = (p: string) => readFileSync(join(root, p), 'utf8');

function sourceFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const p = `${dir}/${e.name}`;
    if (e.isDirectory()) return sourceFiles(p);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

interface Found {
  keys: Map<string, string>;
  problems: string[];
}

/** Whether the file imports `t` from the l10n module (src/gateway/l10n or @vscode/l10n). */
function importsT(sf: ts.SourceFile): boolean {
  return sf.statements.some(
    (s) =>
      ts.isImportDeclaration(s) &&
      ts.isStringLiteral(s.moduleSpecifier) &&
      /l10n$/.test(s.moduleSpecifier.text) &&
      !!s.importClause?.namedBindings &&
      ts.isNamedImports(s.importClause.namedBindings) &&
      s.importClause.namedBindings.elements.some((e) => e.name.text === 't'),
  );
}

/** Whether a call is a translation call: `t(…)` (imported from l10n) or `<…>.l10n.t(…)` / `l10n.t(…)`. */
function isTranslationCall(node: ts.CallExpression, tImported: boolean): boolean {
  const callee = node.expression;
  if (ts.isIdentifier(callee)) return tImported && callee.text === 't';
  return (
    ts.isPropertyAccessExpression(callee) && callee.name.text === 't' && /(^|\.)l10n$/.test(callee.expression.getText())
  );
}

/** Every translation key in src/, with where it is used; a non-literal key is a problem. */
function translationKeys(): Found {
  const keys = new Map<string, string>();
  const problems: string[] = [];
  for (const file of sourceFiles('src')) {
    const sf = ts.createSourceFile(file, read(file), ts.ScriptTarget.ES2022, true);
    const tImported = importsT(sf);
    const visit = (node: ts.Node): void => {
      if (ts.isCallExpression(node) && isTranslationCall(node, tImported)) {
        const first = node.arguments[0];
        const where = `${relative(root, join(root, file))}:${sf.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
        if (first && (ts.isStringLiteral(first) || ts.isNoSubstitutionTemplateLiteral(first)))
          keys.set(first.text, where);
        else problems.push(`${where}: t() needs a string literal as its key, not ${first?.getText() ?? 'nothing'}`);
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return { keys, problems };
}

function chineseBundle(): Map<string, { text: string; file: string }> {
  const out = new Map<string, { text: string; file: string }>();
  for (const file of readdirSync(join(root, 'l10n/zh-cn'))
    .filter((f) => f.endsWith('.json'))
    .sort()) {
    const parsed = JSON.parse(read(`l10n/zh-cn/${file}`)) as Record<string, unknown>;
    for (const [key, text] of Object.entries(parsed)) {
      assert.equal(typeof text, 'string', `l10n/zh-cn/${file}: "${key}" must map to a string`);
      const before = out.get(key);
      assert.ok(!before || before.text === text, `"${key}" is translated differently in ${before?.file} and ${file}`);
      out.set(key, { text: text as string, file });
    }
  }
  return out;
}

const placeholders = (s: string) =>
  [...s.matchAll(/\{(\w+)\}/g)]
    .map((m) => m[1])
    .sort()
    .join(',');

test('every t() key is a string literal', () => {
  assert.deepEqual(translationKeys().problems, []);
});

test('every runtime string has a Chinese translation, and every translation a key, with the same placeholders', () => {
  const { keys } = translationKeys();
  const zh = chineseBundle();
  assert.ok(keys.size > 0, 'no t() call found in src/');
  const missing = [...keys].filter(([k]) => !zh.has(k)).map(([k, where]) => `${where}: "${k}"`);
  const stale = [...zh].filter(([k]) => !keys.has(k)).map(([k, v]) => `l10n/zh-cn/${v.file}: "${k}"`);
  const mismatched = [...zh]
    .filter(([k, v]) => keys.has(k) && placeholders(k) !== placeholders(v.text))
    .map(([k, v]) => `${v.file}: "${k}" → "${v.text}"`);
  assert.deepEqual(missing, [], 'keys without a Chinese translation');
  assert.deepEqual(stale, [], 'translations whose key is no longer used in src/');
  assert.deepEqual(mismatched, [], 'placeholders differ between the key and its translation');
});

/** Contributed fields a user reads: they must be %keys%. */
const USER_FIELDS = new Set([
  'title',
  'shortTitle',
  'description',
  'markdownDescription',
  'label',
  'displayName',
  'userDescription',
  'contents',
  'deprecationMessage',
  'markdownDeprecationMessage',
  'fullName',
]);
/** Names that stay the same in both languages. */
const SAME_IN_BOTH = new Set(['Model Relay', 'relay-doctor']);
const USER_ARRAYS = new Set(['enumDescriptions', 'markdownEnumDescriptions']);

function contributedStrings(value: unknown, path: string, out: Array<{ path: string; text: string }>): void {
  if (Array.isArray(value)) value.forEach((v, i) => contributedStrings(v, `${path}[${i}]`, out));
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      const viewName = k === 'name' && /^contributes\.views\./.test(path);
      if (typeof v === 'string' && (USER_FIELDS.has(k) || viewName)) out.push({ path: `${path}.${k}`, text: v });
      else if (Array.isArray(v) && USER_ARRAYS.has(k))
        v.forEach((s, i) => out.push({ path: `${path}.${k}[${i}]`, text: String(s) }));
      else if (k !== 'inputSchema') contributedStrings(v, `${path}.${k}`, out);
    }
  }
}

test('every contributed string is a %key% defined in both package.nls files, which hold the same keys', () => {
  const pkg = JSON.parse(read('package.json')) as Record<string, unknown>;
  const en = JSON.parse(read('package.nls.json')) as Record<string, string>;
  const zh = JSON.parse(read('package.nls.zh-cn.json')) as Record<string, string>;
  const strings: Array<{ path: string; text: string }> = [
    { path: 'displayName', text: String(pkg.displayName) },
    { path: 'description', text: String(pkg.description) },
  ];
  contributedStrings(pkg.contributes, 'contributes', strings);
  contributedStrings(pkg.capabilities, 'capabilities', strings);
  const literal = strings.filter((s) => !/^%[\w.-]+%$/.test(s.text)).map((s) => `${s.path}: "${s.text}"`);
  assert.deepEqual(literal, [], 'contributed strings that are not %keys%');
  const used = new Set(strings.map((s) => s.text.slice(1, -1)));
  assert.deepEqual(
    [...used].filter((k) => !(k in en)),
    [],
    'keys missing from package.nls.json',
  );
  assert.deepEqual(
    Object.keys(en).filter((k) => !(k in zh)),
    [],
    'keys missing from package.nls.zh-cn.json',
  );
  assert.deepEqual(
    Object.keys(zh).filter((k) => !(k in en)),
    [],
    'keys only in package.nls.zh-cn.json',
  );
  assert.deepEqual(
    Object.keys(en).filter((k) => !used.has(k)),
    [],
    'package.nls.json keys package.json no longer uses',
  );
  const untranslated = Object.keys(en).filter(
    (k) => zh[k] === en[k] && /[a-z]{3}/i.test(en[k]) && !SAME_IN_BOTH.has(en[k]),
  );
  assert.deepEqual(untranslated, [], 'zh-cn entries left in English');
});
