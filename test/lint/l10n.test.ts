/**
 * Both languages stay whole: every runtime string key (`t('…')`, `l10n.t('…')`, `vscode.l10n.t('…')`
 * in src/) has a Chinese translation in l10n/zh-cn/*.json and every translation has a key, with the
 * same placeholders; every contributed string in package.json is a `%key%` defined in both
 * package.nls.json and package.nls.zh-cn.json, and the two files hold the same keys.
 * And sentences stay whole: no text glued from a translated piece with `+` (or a template literal
 * holding two translations), no key that starts or ends with a space (a fragment waiting for glue),
 * no internal reference such as "(spec 6)" in a key (users don't have the spec). Each rule is shown
 * to bite on an inline sample.
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

/** `(x)` → `x` */
function unwrap(node: ts.Expression): ts.Expression {
  return ts.isParenthesizedExpression(node) ? unwrap(node.expression) : node;
}

/** A key that ends a sentence early or carries a reference only the developers can follow. */
function keyProblem(key: string): string | undefined {
  if (/^\s|\s$/.test(key)) return `the key "${key}" starts or ends with a space: translate the whole sentence`;
  if (/\(\s*spec\s*\d/i.test(key))
    return `the key "${key}" holds an internal reference ("(spec N"): users don't have the spec`;
  return undefined;
}

/**
 * Whether a template literal puts two translations into one line: `${t('a')} ${t('b')}`. Lines of
 * their own (a help text, "error: …\n cause: …") are whole sentences each and pass.
 */
function gluesTranslations(node: ts.TemplateExpression, isT: (e: ts.Expression) => boolean): boolean {
  let sameLine = false; // a translation earlier on the current line
  for (const span of node.templateSpans) {
    if (isT(span.expression)) {
      if (sameLine) return true;
      sameLine = true;
    }
    if (span.literal.text.includes('\n')) sameLine = false;
  }
  return false;
}

/**
 * The word rules over one file's text: a translation glued with `+` / `+=`, a template literal
 * with two or more translations, a key with an edge space or an internal reference. Each problem
 * starts with `file:line`.
 */
function wordProblems(file: string, text: string): string[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true);
  const tImported = importsT(sf);
  const isT = (n: ts.Expression) => {
    const e = unwrap(n);
    return ts.isCallExpression(e) && isTranslationCall(e, tImported);
  };
  const problems: string[] = [];
  const at = (node: ts.Node) => `${file}:${sf.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
  const snippet = (node: ts.Node) => node.getText().replace(/\s+/g, ' ').slice(0, 100);
  const visit = (node: ts.Node): void => {
    if (
      ts.isBinaryExpression(node) &&
      (node.operatorToken.kind === ts.SyntaxKind.PlusToken ||
        node.operatorToken.kind === ts.SyntaxKind.PlusEqualsToken) &&
      (isT(node.left) || isT(node.right))
    )
      problems.push(`${at(node)}: a sentence glued from a translated piece with +: ${snippet(node)}`);
    if (ts.isTemplateExpression(node) && gluesTranslations(node, isT))
      problems.push(`${at(node)}: a template literal glues translated pieces: ${snippet(node)}`);
    if (ts.isCallExpression(node) && isTranslationCall(node, tImported)) {
      const first = node.arguments[0];
      const problem = first && ts.isStringLiteralLike(first) ? keyProblem(first.text) : undefined;
      if (problem) problems.push(`${at(node)}: ${problem}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return problems;
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

test('no sentence is glued from translated pieces, and no key has an edge space or an internal reference', () => {
  const problems = sourceFiles('src').flatMap((f) => wordProblems(f, read(f)));
  assert.ok(problems.length === 0, `whole sentences only, one t() with placeholders:\n${problems.join('\n')}`);
});

test('the word rules bite: each glued or broken form in a sample is reported with its line', () => {
  const sample = [
    "import { t } from '../gateway/l10n';",
    "import * as vscode from 'vscode';",
    "const a = t('Saved to') + path;",
    "const b = prefix + vscode.l10n.t('in queue');",
    "const c = `${t('Seconds')} ${t('left')}`;",
    "let d = ''; d += t('more');",
    "const e = t(' (gateway: {0})', x);",
    "const f = vscode.l10n.t('Buffered by a proxy (spec 6).');",
    "const g = (t('a')) + '.';",
    "const h = `${t('One.')}${said} ${t('Two.')}`;",
  ].join('\n');
  const found = wordProblems('sample.ts', sample);
  assert.deepEqual(
    found.map((p) => p.split(': ')[0]),
    [
      'sample.ts:3',
      'sample.ts:4',
      'sample.ts:5',
      'sample.ts:6',
      'sample.ts:7',
      'sample.ts:8',
      'sample.ts:9',
      'sample.ts:10',
    ],
    found.join('\n'),
  );
  assert.match(found[0], /glued from a translated piece with \+: t\('Saved to'\) \+ path/);
  assert.match(found[2], /template literal glues translated pieces/);
  assert.match(found[4], /starts or ends with a space/);
  assert.match(found[5], /internal reference/);
  const whole = [
    "import { t } from '../gateway/l10n';",
    "const a = t('Saved to {0}', path);",
    "const b = `$(pass) ${t('Relay: {0}', name)}`;",
    "const c = 'a' + 'b';",
    'const d = count + 1;',
    "const e = t('{0}: {1}', label, value);",
    "const f = `${t('error: {0}', m)}\\n  ${t('cause: {0}', c)}`;",
  ].join('\n');
  assert.deepEqual(wordProblems('whole.ts', whole), []);
  // without the import, a local function called t is not a translation
  assert.deepEqual(wordProblems('other.ts', "const t = (s: string) => s; const a = t('x ') + y;"), []);
});
