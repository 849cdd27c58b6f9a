/** The language-model tools' texts: models per capability, the image tool's input rules and confirmation. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { diagnoseConfirmation, imageConfirmation, imageToolInput, modelsText } from '../../src/host/lm/toolText';
import { ToolName } from '../../src/host/commandIds';

const models = [
  { id: 'gpt-4o-mini', capabilities: ['chat' as const] },
  { id: 'claude-sonnet-4-5', capabilities: ['chat' as const, 'native' as const] },
  { id: 'gpt-image-1', capabilities: ['image' as const, 'image-edit' as const] },
  { id: 'mystery' },
];

test('models per capability, a model under each capability it has; unknown ones named', () => {
  const all = modelsText(models);
  assert.match(all, /^4 models are visible to this token/);
  assert.match(all, /chat \(compatible surface\): claude-sonnet-4-5, gpt-4o-mini/);
  assert.match(all, /native messages surface: claude-sonnet-4-5/);
  assert.match(all, /image editing: gpt-image-1/);
  assert.match(all, /capability not reported by the gateway \(try them as chat models\): mystery/);
  assert.doesNotMatch(all, /video/);
  const video = modelsText(models, 'video');
  assert.match(video, /video generation: none for this token/);
  assert.equal(modelsText([]), "This token's group sees no models on the gateway.");
});

test('the image tool: a prompt and a configured model are needed, the size must be WIDTHxHEIGHT', () => {
  assert.match((imageToolInput({ prompt: 'x' }, '') as { error: string }).error, /modelRelay\.models\.image/);
  assert.match((imageToolInput({ prompt: '  ' }, 'gpt-image-1') as { error: string }).error, /empty/);
  assert.match(
    (imageToolInput({ prompt: 'a cat', size: 'big' }, 'gpt-image-1') as { error: string }).error,
    /WIDTHxHEIGHT/,
  );
  assert.deepEqual(imageToolInput({ prompt: ' a cat ', size: '1024x1024' }, 'gpt-image-1'), {
    prompt: 'a cat',
    size: '1024x1024',
  });
  assert.deepEqual(imageToolInput({ prompt: 'a cat', size: 7 }, 'gpt-image-1'), { prompt: 'a cat', size: undefined });
});

test('the confirmation names the model and says the call is billed', () => {
  const c = imageConfirmation('gpt-image-1', 'a red square\nwith a border', '512x512');
  assert.match(c.title, /gpt-image-1/);
  assert.match(c.message, /\*\*gpt-image-1\*\*/);
  assert.match(c.message, /\(512x512\)/);
  assert.match(c.message, /> a red square\n> with a border/);
  assert.match(c.message, /bills this call/);
  assert.ok(imageConfirmation('m', 'x'.repeat(1000), undefined).message.length < 600);
  assert.match(
    imageConfirmation('gpt-image-1', 'cat', undefined, '$0.04 per call').message,
    /It costs \$0\.04 per call, billed by the gateway\./,
  );
});

test("the diagnosis tool's confirmation: the token goes to the gateway (named, with its address), and its checks are billed", () => {
  const c = diagnoseConfirmation('production', 'https://gw.example.com');
  assert.equal(c.title, 'Diagnose the connection to production?');
  assert.match(c.message, /send requests with your token to \*\*production\*\* \(https:\/\/gw\.example\.com\)/);
  assert.match(c.message, /one request from each terminal tool set up for it — only to the gateway's own addresses/);
  assert.match(c.message, /\n\nThe generation checks and the tools' requests are real calls, which the gateway bills/);
  assert.match(c.message, /Image and video checks are not run\./);
});

test('package.json declares the three tools of ToolName, referencable with # (test/host/activation.test.ts proves each is implemented)', () => {
  const pkg = JSON.parse(readFileSync(resolve(__dirname, '../../../package.json'), 'utf8')) as {
    contributes: {
      languageModelTools: Array<{
        name: string;
        toolReferenceName?: string;
        canBeReferencedInPrompt?: boolean;
        modelDescription: string;
        inputSchema: { type: string };
      }>;
    };
  };
  const tools = pkg.contributes.languageModelTools;
  assert.deepEqual(
    tools.map((t) => t.name),
    ['modelRelay_generateImage', 'modelRelay_listModels', 'modelRelay_diagnose'],
  );
  assert.deepEqual(tools.map((t) => t.name).sort(), Object.values(ToolName).sort());
  for (const t of tools) {
    assert.match(t.name, /^(?!copilot_|vscode_)[\w-]+$/);
    assert.ok(
      t.canBeReferencedInPrompt && /^[\w-]+$/.test(t.toolReferenceName ?? ''),
      `${t.name} is referencable with #`,
    );
    assert.ok(t.modelDescription.length > 80);
    assert.equal(t.inputSchema.type, 'object');
  }
});
