/** The chat's model list (src/host/chat/chatModels.ts): overlapping loads, the newest wins. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ChatModels, type ModelSource } from '../../src/host/chat/chatModels';
import type { GatewayModelList, GatewayProfile, ModelInfo } from '../../src/gateway';
import type { ModelList } from '../../src/shared/chatProtocol';

const gateway: GatewayProfile = { id: 'default', name: 'Relay', baseUrl: 'https://relay.example.com' };

/** A model source of one gateway whose loads finish when the test says (each call gets its own pending answer). */
function source() {
  const pending: Array<(models: ModelInfo[]) => void> = [];
  const s: ModelSource & { refreshModels(): Promise<ModelInfo[]> } = {
    gateways: () => [
      {
        id: 'default',
        name: 'Relay',
        active: true,
        defaults: { compatible: 'gpt-4o-mini', native: 'claude-sonnet-4-5' },
      },
    ],
    refreshModels: () => new Promise<ModelInfo[]>((resolve) => pending.push(resolve)),
    listModels: async (): Promise<GatewayModelList[]> => [{ gateway, models: await s.refreshModels() }],
  };
  return { s, pending };
}
const model = (id: string) => ({ id }) as ModelInfo;
const ids = (l: ModelList) => l.groups[0].items.map((m) => m.id);

test('overlapping loads: the newest request wins even when the older one finishes last', async () => {
  const { s, pending } = source();
  const posted: ModelList[] = [];
  const models = new ChatModels(
    s,
    (m) => posted.push(m),
    () => true,
  );
  const first = models.load(); // e.g. the old token's list, slow
  const second = models.load(); // after a token switch
  pending[1]([model('new-token-model')]);
  await second;
  pending[0]([model('old-token-model')]);
  await first;
  assert.deepEqual(ids(models.current), ['new-token-model']);
  assert.deepEqual(ids(posted.at(-1)!), ['new-token-model'], 'the late answer is not posted either');
  assert.equal(models.current.loading, false);
});

test('an older load that fails late does not replace the newer list with its error', async () => {
  const { s, pending } = source();
  let calls = 0;
  const failing: typeof s = {
    ...s,
    listModels: async () => [{ gateway, models: await failing.refreshModels() }],
    refreshModels: () =>
      ++calls === 1
        ? new Promise<ModelInfo[]>((_, reject) => setTimeout(() => reject(new Error('old token')), 30))
        : s.refreshModels(),
  };
  const models = new ChatModels(
    failing,
    () => undefined,
    () => true,
  );
  const first = models.load();
  const second = models.load();
  pending[0]([model('fresh')]);
  await Promise.all([first, second]);
  assert.equal(models.current.groups[0].error, undefined);
  assert.deepEqual(ids(models.current), ['fresh']);
});
