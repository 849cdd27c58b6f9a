/**
 * The chat's economy over real HTTP against the simulator's new-api profile: the model picker's
 * prices and a reply's cost from /api/pricing; nothing where the gateway publishes no prices.
 */
import { imageFiles } from './helpers';
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { replyCost } from '../../src/gateway';
import { ChatModels } from '../../src/host/chat/chatModels';
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

test("the model picker's list carries each model's price", async () => {
  const { client } = makeClient(real);
  let posted: ModelList | undefined;
  const service = {
    current: { models: { chat: 'gpt-4o-mini', native: 'claude-sonnet-4-5' } },
    refreshModels: () => client.listModels(),
    refreshPricing: () => client.account.pricing(),
    price: (id: string) => ({ text: undefined as string | undefined, id }),
  };
  const prices = await client.account.pricing();
  const { priceText } = await import('../../src/gateway');
  service.price = (id: string) => ({ text: priceText(prices?.get(id)), id });
  const models = new ChatModels(
    service,
    (m) => (posted = m),
    () => true,
  );
  await models.load();
  assert.equal(posted?.items.find((m) => m.id === 'gpt-4o-mini')?.price, '$0.15 in / $0.60 out per 1M tokens');
  assert.equal(
    posted?.items.find((m) => m.id === 'gpt-image-1')?.price,
    '$0.04 per call',
    'quoted for the default group',
  );
});
