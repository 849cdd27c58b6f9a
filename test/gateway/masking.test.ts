/**
 * Runs every kind of scenario and scans every request record, error message, error stack, error
 * JSON and inspected error for the full token: it must never appear, only the masked form.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator, type Fault } from '../sim/server';
import { collect, deadPort, makeClient } from './helpers';
import { maskToken, renderMarkdown, renderTable, runDiagnosis, stripUrlCredentials } from '../../src/gateway';
import { oneGateway } from '../fakes/diagnosis';

test('the full token never appears in records, errors or results of any scenario', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'relay-mask-'));
  const texts: string[] = [];
  const tokensSeen = new Set<string>();
  try {
    for (const profile of ['strict', 'real'] as const) {
      const sim = await startSimulator({ profile, hosts: 2 });
      try {
        const dead = await deadPort();
        for (const tokenName of ['production', 'test', 'disabled', 'bogus']) {
          const value = tokenName === 'bogus' ? 'sk-BOGUS' + 'q'.repeat(40) + 'tail' : sim.tokens[tokenName];
          tokensSeen.add(value);
          const { client, records } = makeClient(sim, {
            token: () => value,
            baseUrl: `http://127.0.0.1:${dead}`,
            backupUrls: [sim.urls[1]],
          });
          const faults: Array<Fault | undefined> = [
            undefined,
            { kind: 'status', status: 429, count: 1 },
            { kind: 'status', status: 500, body: 'json' },
            { kind: 'html' },
            { kind: 'invalidJson' },
            { kind: 'midStreamError', afterEvents: 1 },
            { kind: 'truncate', afterEvents: 1 },
            { kind: 'reset' },
          ];
          for (const f of faults) {
            sim.clearFaults();
            if (f) sim.fault(f);
            const calls: Array<() => Promise<unknown>> = [
              () =>
                client.chat({
                  surface: 'compatible',
                  model: 'gpt-4o-mini',
                  messages: [{ role: 'user', content: 'hi' }],
                }),
              () =>
                client.chat({
                  surface: 'native',
                  model: 'claude-sonnet-4-5',
                  messages: [{ role: 'user', content: 'hi' }],
                }),
              () =>
                collect(
                  client.chatStream({
                    surface: 'compatible',
                    model: 'gpt-4o',
                    messages: [{ role: 'user', content: 'hi' }],
                  }),
                ),
              () =>
                collect(
                  client.chatStream({
                    surface: 'native',
                    model: 'claude-sonnet-4-5',
                    messages: [{ role: 'user', content: 'a b c' }],
                  }),
                ),
              () => client.listModels(),
              () => client.generateImage({ model: 'gpt-image-1', prompt: 'x' }),
              () => client.createVideo({ model: 'sora-2', prompt: 'x' }),
              () => client.getVideo('task_missing'),
              () => client.downloadVideo('task_missing', join(dir, 'v.mp4')),
            ];
            for (const call of calls) {
              try {
                texts.push(JSON.stringify(await call()));
              } catch (e) {
                const err = e as Error & { toJSON?: () => unknown };
                texts.push(
                  err.message,
                  String(err.stack),
                  inspect(err, { depth: 5 }),
                  JSON.stringify(err.toJSON ? err.toJSON() : err),
                );
              }
            }
          }
          texts.push(...records.map((r) => JSON.stringify(r)));
          assert.ok(records.some((r) => r.maskedToken === maskToken(value)));
        }
        texts.push(JSON.stringify(sim.log));
      } finally {
        await sim.close();
      }
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  const all = texts.join('\n');
  assert.ok(all.length > 10_000, 'the scan covered a lot of output');
  for (const t of tokensSeen) {
    assert.equal(all.includes(t), false, `full token ${maskToken(t)} leaked`);
    assert.equal(all.includes(t.slice(6, -4)), false, `the middle of ${maskToken(t)} leaked`);
  }
});

test('a key echoed without its sk- prefix, and credentials in a base URL, are never shown', async () => {
  const sim = await startSimulator({ profile: 'real' });
  try {
    const token = sim.tokens.production;
    const bare = token.slice(3);
    sim.fault({ kind: 'echoKey' });
    const { client } = makeClient(sim);
    let caught: unknown;
    try {
      await client.chat({ surface: 'compatible', model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    } catch (e) {
      caught = e;
    }
    const e = caught as { kind: string; gatewayMessage: string };
    assert.equal(e.kind, 'unauthorized');
    assert.match(
      e.gatewayMessage,
      new RegExp(`无效的令牌 ${maskToken(bare).replace(/[.]/g, '\\.')}`),
      'the echoed key is shown masked',
    );
    for (const text of [JSON.stringify(caught), inspect(caught, { depth: 5 }), String((caught as Error).stack)])
      assert.ok(!text.includes(bare), 'no bare key');
    const withPassword = sim.url.replace('http://', 'http://relay-user:S3cretPassw0rd@');
    const report = await runDiagnosis({
      baseUrl: withPassword,
      backupUrls: [withPassword],
      token,
      models: { chat: 'gpt-4o-mini' },
      timeouts: { requestMs: 3000, totalMs: 10000 },
    });
    for (const text of [JSON.stringify(report), renderMarkdown(oneGateway(report)), renderTable(oneGateway(report))]) {
      assert.ok(!text.includes('S3cretPassw0rd'), 'no URL password in the report');
      assert.ok(!text.includes(bare) && !text.includes(token), 'no token in the report');
    }
    assert.equal(
      stripUrlCredentials('see https://u:p@h.example.com/x and http://a@b'),
      'see https://***@h.example.com/x and http://***@b',
    );
  } finally {
    await sim.close();
  }
});
