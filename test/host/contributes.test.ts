/**
 * package.json's contributions and the code agree: the id registry (src/host/commandIds.ts) names
 * exactly what package.json contributes (that each id is implemented is proved by running activation,
 * test/host/activation.test.ts); every `modelRelay.*` setting has one schema entry whose default
 * equals the declared default (the defaults come from src/gateway/defaults.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CommandId, LM_VENDOR, PARTICIPANT_ID, ToolName, ViewId, WALKTHROUGH_ID } from '../../src/host/commandIds';
import {
  parseSettings,
  relaySettings,
  SETTINGS,
  USER_ONLY,
  type SettingKey,
} from '../../src/host/gateways/settingsSchema';

const root = resolve(__dirname, '../../..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  contributes: {
    commands: Array<{ command: string }>;
    views: Record<string, Array<{ id: string }>>;
    languageModelChatProviders: Array<{ vendor: string }>;
    chatParticipants: Array<{ id: string }>;
    languageModelTools: Array<{ name: string }>;
    configuration:
      | { properties: Record<string, { default?: unknown }> }
      | Array<{ properties: Record<string, { default?: unknown }> }>;
  };
};

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : [];
  });
}

test('CommandId lists exactly the commands package.json contributes', () => {
  const declared = pkg.contributes.commands.map((c) => c.command).sort();
  const ids = (Object.values(CommandId) as string[]).sort();
  assert.deepEqual(ids, declared);
  assert.equal(new Set(ids).size, ids.length, 'no id twice');
});

test('the id registry names every view, vendor, participant and tool package.json contributes', () => {
  const c = pkg.contributes;
  const views = Object.values(c.views)
    .flat()
    .map((v) => v.id);
  assert.deepEqual(Object.values(ViewId).sort(), views.sort());
  assert.deepEqual(
    c.languageModelChatProviders.map((p) => p.vendor),
    [LM_VENDOR],
  );
  assert.deepEqual(
    c.chatParticipants.map((p) => p.id),
    [PARTICIPANT_ID],
  );
  assert.deepEqual(Object.values(ToolName).sort(), c.languageModelTools.map((t) => t.name).sort());
});

function declaredSettings(): Record<string, { default?: unknown }> {
  const c = pkg.contributes.configuration;
  const props: Record<string, { default?: unknown }> = Array.isArray(c)
    ? Object.assign({}, ...c.map((s) => s.properties))
    : c.properties;
  return Object.fromEntries(Object.entries(props).map(([k, v]) => [k.replace(/^modelRelay\./, ''), v]));
}

test("one schema entry per modelRelay.* setting, with package.json's default", () => {
  const declared = declaredSettings();
  assert.deepEqual(Object.keys(SETTINGS).sort(), Object.keys(declared).sort());
  for (const key of Object.keys(SETTINGS) as SettingKey[]) {
    assert.deepEqual(SETTINGS[key].default, declared[key].default, `default of modelRelay.${key}`);
    assert.ok(
      SETTINGS[key].schema.safeParse(SETTINGS[key].default).success,
      `the default of ${key} fits its own schema`,
    );
  }
});

test('settings: values that do not fit fall back to the default; model ids are trimmed', () => {
  const values: Partial<Record<SettingKey, unknown>> = {
    maxTokens: -5,
    temperature: 'hot',
    defaultSurface: 'native',
    'models.chat': '  gpt-4o-mini ',
    backupUrls: ['', 'https://b.example.com'],
    'timeouts.chatSeconds': 1,
  };
  const s = relaySettings(parseSettings((k) => values[k]));
  assert.equal(relaySettings(parseSettings((k) => (k === 'temperature' ? 0.3 : undefined))).temperature, 0.3);
  assert.equal(s.maxTokens, SETTINGS.maxTokens.default);
  assert.equal(s.temperature, undefined, "unset: the model's own default, nothing sent");
  assert.equal(s.defaultSurface, 'native');
  assert.equal(s.models.chat, 'gpt-4o-mini');
  assert.deepEqual(s.backupUrls, ['https://b.example.com']);
  assert.equal(s.timeouts.chatSeconds, SETTINGS['timeouts.chatSeconds'].default, 'below the minimum');
});

test('no module reads a modelRelay setting outside the settings module', () => {
  for (const f of sources(join(root, 'src'))) {
    if (f.endsWith(join('extension', 'gateways', 'settings.ts'))) continue;
    assert.doesNotMatch(readFileSync(f, 'utf8'), /getConfiguration\(/, `${f} reads the configuration itself`);
  }
});

test('what a repository may not change: machine-scoped keys are read from user settings only; models and folders are restricted', () => {
  const props = declaredSettings() as Record<string, { scope?: string }>;
  const machine = Object.keys(props)
    .filter((k) => props[k].scope === 'machine')
    .sort();
  assert.deepEqual([...USER_ONLY].sort(), machine);
  for (const k of ['baseUrl', 'backupUrls', 'maxRetries', 'nativeCli.baseUrlVariable', 'nativeCli.tokenVariable'])
    assert.ok(machine.includes(k), k);
  const restricted = (
    pkg as unknown as { capabilities: { untrustedWorkspaces: { restrictedConfigurations: string[] } } }
  ).capabilities.untrustedWorkspaces.restrictedConfigurations;
  for (const k of [
    'models.chat',
    'models.native',
    'models.image',
    'models.imageEdit',
    'models.video',
    'images.outputFolder',
    'videos.outputFolder',
    'extraHeaders',
  ])
    assert.ok(restricted.includes(`modelRelay.${k}`), k);
});

interface Pkg {
  contributes: {
    commands: Array<{ command: string }>;
    configuration: Array<{
      title: string;
      order?: number;
      properties: Record<string, { order?: number; markdownDescription?: string; description?: string }>;
    }>;
    menus: Record<string, Array<{ command: string; when?: string; group?: string }>>;
    keybindings: Array<{ command: string; key: string; mac?: string }>;
    views: Record<string, Array<{ id: string }>>;
    viewsWelcome: Array<{ view: string; contents: string }>;
    walkthroughs: Array<{
      id: string;
      steps: Array<{
        id: string;
        description: string;
        media: { svg?: string; image?: string; markdown?: string };
        completionEvents: string[];
      }>;
    }>;
  };
}
const full = pkg as unknown as Pkg;
const commandIds = new Set(full.contributes.commands.map((c) => c.command));
const viewIds = new Set(
  Object.values(full.contributes.views)
    .flat()
    .map((v) => v.id),
);
const commandLinks = (md: string) => [...md.matchAll(/\(command:([\w.]+)/g)].map((m) => m[1]);
/** VS Code's own commands and settings a walkthrough step may name (Chat: Manage Language Models; the utility model). */
const VSCODE_COMMANDS = new Set(['workbench.action.chat.manage']);
const VSCODE_SETTINGS = new Set(['chat.utilityModel', 'chat.utilitySmallModel']);

test('settings come in titled, ordered sections; each setting has a markdownDescription, an order, and links only to real settings', () => {
  const sections = full.contributes.configuration;
  assert.ok(Array.isArray(sections) && sections.length >= 6);
  const settingIds = new Set(sections.flatMap((s) => Object.keys(s.properties)));
  for (const s of sections) {
    assert.ok(s.title && typeof s.order === 'number', `section ${s.title} has a title and an order`);
    for (const [id, p] of Object.entries(s.properties)) {
      assert.ok(typeof p.order === 'number', `${id} order`);
      assert.ok(p.markdownDescription && !p.description, `${id} has a markdownDescription (only)`);
    }
  }
  const en = JSON.parse(readFileSync(join(root, 'package.nls.json'), 'utf8')) as Record<string, string>;
  for (const text of Object.values(en))
    for (const m of text.matchAll(/#(modelRelay\.[\w.]+)#/g)) assert.ok(settingIds.has(m[1]), `link to ${m[1]}`);
});

test('the Status view title shows at most three inline actions; the rest are in its … menu', () => {
  const title = full.contributes.menus['view/title'].filter((m) => m.when === 'view == modelRelay.status');
  assert.ok(title.filter((m) => m.group?.startsWith('navigation')).length <= 3);
  assert.ok(title.length > 3, 'the other actions stay reachable from the … menu');
});

test('the walkthrough: each step has a command button, media on disk and a completion event that can happen', () => {
  const [w] = full.contributes.walkthroughs;
  assert.ok(w && w.steps.length === 8);
  const en = JSON.parse(readFileSync(join(root, 'package.nls.json'), 'utf8')) as Record<string, string>;
  for (const s of w.steps) {
    const description = en[s.description.slice(1, -1)] ?? s.description;
    assert.ok(
      commandLinks(description).length > 0 &&
        commandLinks(description).every((c) => commandIds.has(c) || VSCODE_COMMANDS.has(c)),
      `${s.id}: a button for a real command`,
    );
    const media = s.media.svg ?? s.media.image ?? s.media.markdown;
    assert.ok(media && statSync(join(root, media)).isFile(), `${s.id}: ${media}`);
    for (const e of s.completionEvents) {
      const [kind, arg] = [e.slice(0, e.indexOf(':')), e.slice(e.indexOf(':') + 1)];
      if (kind === 'onCommand') assert.ok(commandIds.has(arg) || VSCODE_COMMANDS.has(arg), e);
      else if (kind === 'onView') assert.ok(viewIds.has(arg), e);
      else if (kind === 'onSettingChanged')
        assert.ok(arg.replace(/^modelRelay\./, '') in SETTINGS || VSCODE_SETTINGS.has(arg), e);
      else assert.fail(`unexpected completion event ${e}`);
    }
  }
  // "Model Relay: Get Started" opens it by this id
  assert.equal(w.id, WALKTHROUGH_ID);
});

test('welcome content and keybindings point at real commands and views', () => {
  const en = JSON.parse(readFileSync(join(root, 'package.nls.json'), 'utf8')) as Record<string, string>;
  for (const v of full.contributes.viewsWelcome) {
    assert.ok(viewIds.has(v.view), v.view);
    const links = commandLinks(en[v.contents.slice(1, -1)] ?? v.contents);
    assert.ok(links.length > 0 && links.every((c) => commandIds.has(c)), `${v.view}: ${links}`);
  }
  for (const k of full.contributes.keybindings)
    assert.ok(
      commandIds.has(k.command) || (k.command.endsWith('.focus') && viewIds.has(k.command.slice(0, -'.focus'.length))),
      k.command,
    );
});
