/**
 * The chat's economy over real HTTP against the simulator's new-api profile: the model picker's
 * prices and a reply's cost from /api/pricing; nothing where the gateway publishes no prices.
 */
import { imageFiles } from './helpers';
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { GatewaySet, listModelsAcross, replyCost } from '../../src/gateway';
import { chatGateways, ChatModels } from '../../src/host/chat/chatModels';
import { ChatSession } from '../../src/host/chat/session';
import type { ChatOptions, ModelList } from '../../src/shared/chatProtocol';
import { usageLine } from '../../src/webview/messageView';
import { startSimulator, type Simulator } from '../sim/server';
import { makeClient } from '../gateway/helpers';
import { chatStrings } from '../../src/host/chat/chatWords';

let real: Simulator;
let strict: Simulator;
before(async () => {
  real = await startSimulator({ profile: 'real' });
  strict = await startSimulator({ profile: 'strict' });
});
after(async () => {
  await real.close();
  await strict.close();
});

const opts: ChatOptions = { surface: 'compatible', model: 'gpt-4o-mini', system: '', temperature: 0.5, maxTokens: 256 };

async function session(sim: Simulator) {
  const { client } = makeClient(sim);
  const prices = await client.account.pricing();
  const s = new ChatSession({
    images: imageFiles(),
    backend: client,
    streaming: () => true,
    listener: () => undefined,
    models: {
      traits: () => ({ imageInput: true }),
      imageModel: () => undefined,
      costOf: (m, u) => replyCost(prices?.get(m), u),
    },
  });
  return { client, s };
}

test("a reply's usage line says what it cost where the gateway publishes the model's price", async () => {
  const { s } = await session(real);
  const entry = (await s.send('hello there', opts))!;
  assert.equal(entry.status, 'done');
  assert.match(entry.usage?.cost ?? '', /^≈ \$0\.\d+$/);
  assert.match(usageLine(entry, chatStrings()) ?? '', /output tokens · ≈ \$0\.\d+ · \d+\.\d s/);
  const none = await session(strict);
  const plain = (await none.s.send('hello there', opts))!;
  assert.equal(plain.usage?.cost, undefined);
  assert.doesNotMatch(usageLine(plain, chatStrings()) ?? '', /≈/);
});

test("the model picker's groups carry each gateway's own prices: none where that gateway publishes none", async () => {
  const tokens: Record<string, string> = { real: real.tokens.production, strict: strict.tokens.production };
  const set = new GatewaySet(
    [
      { id: 'real', name: 'Priced', baseUrl: real.url },
      { id: 'strict', name: 'Unpriced', baseUrl: strict.url },
    ],
    { token: (id) => tokens[id] },
  );
  let posted: ModelList | undefined;
  const models = new ChatModels(
    {
      gateways: () =>
        chatGateways({
          gateways: () => set.entries().map((e) => e.profile),
          activeId: () => 'strict',
          tokensOf: () => ({ activeName: () => 'production' }),
        }),
      listModels: (ids, boundMs) => listModelsAcross(set, { ids, boundMs }),
      prices: (id) => set.get(id)!.account.pricing(),
    },
    (m) => (posted = m),
    () => true,
  );
  await models.load();
  const [priced, unpriced] = posted!.groups;
  assert.deepEqual([priced.gateway.name, unpriced.gateway.name], ['Priced', 'Unpriced']);
  assert.equal(unpriced.active, true);
  assert.equal(priced.items.find((m) => m.id === 'gpt-4o-mini')?.price, '$0.15 in / $0.60 out per 1M tokens');
  assert.equal(
    priced.items.find((m) => m.id === 'gpt-image-1')?.price,
    '$0.04 per call',
    'quoted for the default group',
  );
  assert.ok(unpriced.items.some((m) => m.id === 'gpt-4o-mini'));
  assert.ok(
    unpriced.items.every((m) => m.price === undefined),
    "the other gateway's price is never shown for this gateway's model",
  );
  assert.ok(models.priceOf('real', 'gpt-4o-mini'));
  assert.equal(models.priceOf('strict', 'gpt-4o-mini'), undefined);
});
