import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, writeFile, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makePng, startSimulator, type Simulator } from '../sim/server';
import { deadPort, makeClient, thrown, type TestClient } from './helpers';

let sim: Simulator;
let dir: string;
before(async () => {
  sim = await startSimulator();
  dir = await mkdtemp(join(tmpdir(), 'relay-media-'));
});
after(async () => {
  await sim.close();
  await rm(dir, { recursive: true, force: true });
});
beforeEach(() => sim.reset());

const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47]);

test('image generation: base64 results decoded to PNG bytes', async () => {
  const { client } = makeClient(sim);
  const r = await client.generateImage({ model: 'gpt-image-1', prompt: 'a lighthouse', size: '256x256' });
  assert.equal(r.images.length, 1);
  assert.equal(r.images[0].mime, 'image/png');
  assert.ok(r.images[0].bytes.subarray(0, 4).equals(PNG_MAGIC));
});

test('image generation: URL results downloaded (without sending the token elsewhere)', async () => {
  const { client } = makeClient(sim);
  const r = await client.generateImage({ model: 'dall-e-3', prompt: 'a lighthouse' });
  assert.ok(r.images[0].sourceUrl);
  assert.ok(r.images[0].bytes.subarray(0, 4).equals(PNG_MAGIC));
});

test('image size is validated before sending', async () => {
  const { client } = makeClient(sim);
  for (const size of ['1024', '1024*1024', 'big', '0x10']) {
    const e = await thrown(() => client.generateImage({ model: 'gpt-image-1', prompt: 'x', size }));
    assert.equal(e.kind, 'bad_request');
    assert.equal(e.notSent, true);
  }
  assert.equal(sim.log.length, 0);
});

test('image edit: multipart with the file, result saved as bytes', async () => {
  const { client } = makeClient(sim);
  const src = (await client.generateImage({ model: 'gpt-image-1', prompt: 'source' })).images[0].bytes;
  const file = join(dir, 'source.png');
  await writeFile(file, src);
  const r = await client.editImage({ model: 'gpt-image-1', prompt: 'make it blue', imagePath: file });
  assert.equal(r.images[0].mime, 'image/png');
  assert.equal(sim.log.at(-1)!.path, '/v1/images/edits');
  assert.equal(sim.log.at(-1)!.status, 200);
});

test('image edit: too large for our limit is caught before sending; over the gateway limit is 413 explained', async () => {
  const { client } = makeClient(sim);
  const big = join(dir, 'big.png');
  await writeFile(big, Buffer.concat([PNG_MAGIC, Buffer.alloc(1_300_000, 7)]));
  const e1 = await thrown(() =>
    client.editImage({ model: 'gpt-image-1', prompt: 'x', imagePath: big, maxFileBytes: 1_000_000 }),
  );
  assert.equal(e1.kind, 'payload_too_large');
  assert.equal(e1.notSent, true);
  assert.equal(sim.log.length, 0);
  const e2 = await thrown(() => client.editImage({ model: 'gpt-image-1', prompt: 'x', imagePath: big }));
  assert.equal(e2.kind, 'payload_too_large');
  assert.equal(e2.status, 413);
  assert.match(e2.fix, /reduce the image or file size/);
});

test('image edit: missing file and wrong type are clear errors', async () => {
  const { client } = makeClient(sim);
  assert.match(
    (await thrown(() => client.editImage({ model: 'gpt-image-1', prompt: 'x', imagePath: join(dir, 'nope.png') })))
      .message,
    /cannot be read/,
  );
  const txt = join(dir, 'a.txt');
  await writeFile(txt, 'hello');
  assert.match(
    (await thrown(() => client.editImage({ model: 'gpt-image-1', prompt: 'x', imagePath: txt }))).message,
    /png, jpg or webp/,
  );
});

test('capabilities from supported_endpoint_types catch a wrong model before sending (real profile)', async () => {
  const real = await startSimulator({ profile: 'real' });
  try {
    const { client } = makeClient(real);
    await client.listModels();
    assert.deepEqual(client.capabilitiesOf('sora-2'), ['video']);
    const n = real.log.length;
    const e = await thrown(() => client.generateImage({ model: 'gpt-4o-mini', prompt: 'x' }));
    assert.equal(e.detail, 'capability_mismatch');
    assert.equal(real.log.length, n, 'nothing sent');
    const v = await thrown(() => client.createVideo({ model: 'gpt-image-1', prompt: 'x' }));
    assert.equal(v.detail, 'capability_mismatch');
  } finally {
    await real.close();
  }
});

for (const profile of ['strict', 'real'] as const) {
  test(`${profile}: video lifecycle queued → in_progress → completed, then content streamed to a file`, async () => {
    const s = profile === 'strict' ? sim : await startSimulator({ profile });
    try {
      const { client, sleeps } = makeClient(s);
      const task = await client.createVideo({ model: 'sora-2', prompt: 'waves', seconds: 4 });
      assert.match(task.id, /^\w+/);
      assert.ok(['queued', 'in_progress'].includes(task.phase));
      const phases: string[] = [];
      const out = await client.pollVideo(task.id, {
        onUpdate: (t) => phases.push(t.phase),
        overallTimeoutMs: 10 * 60_000,
      });
      assert.equal(out.outcome, 'completed');
      assert.ok(phases.includes('in_progress'));
      assert.ok(
        sleeps.every((ms) => ms >= 1000),
        'no high-frequency polling',
      );
      const contentBefore = s.log.filter((l) => l.path.endsWith('/content')).length;
      assert.equal(contentBefore, 0, 'content never requested before completion');
      const file = join(dir, `${profile}-video.mp4`);
      const dl = await client.downloadVideo(task.id, file);
      assert.equal(dl.outcome, 'downloaded');
      const st = await stat(file);
      assert.ok(st.size > 100);
      assert.equal(dl.outcome === 'downloaded' && dl.bytes, st.size);
      assert.equal((await readFile(file)).subarray(4, 8).toString('latin1'), 'ftyp');
    } finally {
      if (s !== sim) await s.close();
    }
  });
}

test('video failure carries the gateway reason', async () => {
  sim.config.video = {
    pollsUntilInProgress: 1,
    pollsUntilDone: 2,
    outcome: 'failed',
    failureReason: 'content policy violation',
  };
  try {
    const { client } = makeClient(sim);
    const task = await client.createVideo({ model: 'sora-2', prompt: 'x' });
    const out = await client.pollVideo(task.id);
    assert.equal(out.outcome, 'failed');
    assert.match(out.outcome === 'failed' ? out.reason : '', /content policy/);
  } finally {
    sim.config.video = { pollsUntilInProgress: 1, pollsUntilDone: 3, outcome: 'completed' };
  }
});

test('video stuck: the overall timeout ends the wait with timed_out (clock injected)', async () => {
  sim.config.video = { pollsUntilInProgress: 1, pollsUntilDone: 3, outcome: 'stuck' };
  try {
    let now = 0;
    const { client } = makeClient(sim, {
      now: () => now,
      sleep: async (ms) => {
        now += ms;
      },
    });
    const task = await client.createVideo({ model: 'sora-2', prompt: 'x' });
    const out = await client.pollVideo(task.id, { overallTimeoutMs: 120_000 });
    assert.equal(out.outcome, 'timed_out');
    assert.ok(out.polls >= 3 && out.polls < 30, `bounded polls: ${out.polls}`);
    assert.ok(now <= 120_000);
  } finally {
    sim.config.video = { pollsUntilInProgress: 1, pollsUntilDone: 3, outcome: 'completed' };
  }
});

test('video poll can be cancelled', async () => {
  sim.config.video = { pollsUntilInProgress: 1, pollsUntilDone: 3, outcome: 'stuck' };
  try {
    const ac = new AbortController();
    const { client } = makeClient(sim);
    const task = await client.createVideo({ model: 'sora-2', prompt: 'x' });
    const out = await client.pollVideo(task.id, { signal: ac.signal, onUpdate: () => ac.abort() });
    assert.equal(out.outcome, 'cancelled');
  } finally {
    sim.config.video = { pollsUntilInProgress: 1, pollsUntilDone: 3, outcome: 'completed' };
  }
});

test('content before completion is not_ready; expired content is expired (strict 404 and real 502)', async () => {
  for (const profile of ['strict', 'real'] as const) {
    const s = await startSimulator({ profile });
    try {
      const { client } = makeClient(s);
      const task = await client.createVideo({ model: 'sora-2', prompt: 'x' });
      const early = await client.downloadVideo(task.id, join(dir, 'early.mp4'));
      assert.equal(early.outcome, 'not_ready');
      s.config.video = { ...s.config.video, expired: true };
      assert.equal((await client.pollVideo(task.id)).outcome, 'completed');
      const late = await client.downloadVideo(task.id, join(dir, 'late.mp4'));
      assert.equal(late.outcome, 'expired', profile);
      assert.match(late.outcome === 'expired' ? late.error.fix : '', /again/);
      await assert.rejects(stat(join(dir, 'late.mp4')));
    } finally {
      await s.close();
    }
  }
});

test('video creation is not retried after a 5xx (it may have been created), only when never sent', async () => {
  const { client } = makeClient(sim);
  // (a proxy's page: the gateway's own JSON 5xx is refunded, so not "may have been billed", though not re-sent either)
  sim.fault({ kind: 'status', status: 500, body: 'html', path: '/v1/videos', count: 1 });
  const e = await thrown(() => client.createVideo({ model: 'sora-2', prompt: 'x' }));
  assert.equal(e.kind, 'server_error');
  assert.equal(sim.log.filter((l) => l.method === 'POST').length, 1, 'exactly one POST');
  sim.fault({ kind: 'reset', path: '/v1/videos', count: 1 });
  const e2 = await thrown(() => client.createVideo({ model: 'sora-2', prompt: 'x' }));
  assert.equal(e2.kind, 'network');
  assert.equal(sim.log.filter((l) => l.method === 'POST').length, 2, 'a reset after sending is not retried either');
  assert.equal(e.mayHaveBeenBilled, true);
  assert.equal(e2.mayHaveBeenBilled, true);
  assert.match(e2.billingNote(), /may have reached the gateway and been charged/);
});

/** A small PNG on disk for edits. */
async function pngFile(): Promise<string> {
  const file = join(dir, `edit-source-${Date.now()}.png`);
  await writeFile(file, makePng('edit-source'));
  return file;
}

test('video creation answered 429 with Retry-After is retried (nothing was created), after that wait', async () => {
  const { client, sleeps } = makeClient(sim);
  sim.fault({ kind: 'status', status: 429, retryAfter: '2', path: '/v1/videos', count: 1 });
  const task = await client.createVideo({ model: 'sora-2', prompt: 'x' });
  assert.ok(task.id);
  assert.deepEqual(sleeps, [2000]);
  assert.deepEqual(
    sim.log.filter((l) => l.method === 'POST').map((l) => l.status),
    [429, 200],
  );
});

for (const [what, call] of [
  ['generation', (c: TestClient['client']) => c.generateImage({ model: 'gpt-image-1', prompt: 'a red square' })],
  [
    'edit',
    async (c: TestClient['client']) =>
      c.editImage({ model: 'gpt-image-1', prompt: 'make it blue', imagePath: await pngFile() }),
  ],
] as const) {
  test(`image ${what} is billed: a reset after sending, a 5xx or a 502 is never sent again (and never failed over)`, async () => {
    const backup = await startSimulator();
    try {
      const { client } = makeClient(sim, { backupUrls: [backup.url] });
      const posts = () =>
        [...sim.log, ...backup.log].filter((l) => l.method === 'POST' && l.path.startsWith('/v1/images/')).length;
      for (const fault of [
        { kind: 'reset' },
        { kind: 'resetAfterBody' },
        { kind: 'status', status: 500, body: 'html' },
        { kind: 'proxyPage', status: 502 },
      ] as const) {
        const before = posts();
        sim.fault({ ...fault, path: '/v1/images', count: 1 });
        const e = await thrown(() => call(client));
        assert.equal(posts() - before, 1, `${JSON.stringify(fault)}: exactly one POST`);
        assert.equal(e.mayHaveBeenBilled, true, JSON.stringify(fault));
        assert.match(e.billingNote(), /not sent again/);
      }
      // The gateway's own JSON 500 (new-api returns the pre-consumed quota): not billed, and still not re-sent.
      const before = posts();
      sim.fault({ kind: 'status', status: 500, path: '/v1/images', count: 1 });
      const own = await thrown(() => call(client));
      assert.equal(posts() - before, 1, 'the JSON 500: exactly one POST');
      assert.equal(own.mayHaveBeenBilled, false, 'the JSON 500 was refunded');
    } finally {
      await backup.close();
    }
  });
}

test('image generation: a 429 (work refused) and a refused connection (never sent) are retried', async () => {
  const { client } = makeClient(sim);
  sim.fault({ kind: 'status', status: 429, retryAfter: '1', path: '/v1/images', count: 1 });
  const r = await client.generateImage({ model: 'gpt-image-1', prompt: 'a' });
  assert.equal(r.images.length, 1);
  assert.deepEqual(
    sim.log.filter((l) => l.path === '/v1/images/generations').map((l) => l.status),
    [429, 200],
  );
  const refused = makeClient(sim, { baseUrl: `http://127.0.0.1:${await deadPort()}`, backupUrls: [sim.url] });
  assert.equal(
    (await refused.client.generateImage({ model: 'gpt-image-1', prompt: 'b' })).images.length,
    1,
    'never sent: failed over to the backup',
  );
});

test('unknown task id is a classified error', async () => {
  const { client } = makeClient(sim);
  const e = await thrown(() => client.getVideo('task_doesnotexist'));
  assert.ok(['not_found', 'bad_request'].includes(e.kind));
  assert.equal((await thrown(() => client.getVideo('../etc/passwd'))).notSent, true);
});

test('image and video calls respect their concurrency caps', async () => {
  const { client } = makeClient(sim, { concurrency: { image: 1 } });
  sim.fault({ kind: 'latency', ms: 80, path: '/v1/images' });
  const p = Promise.all([
    client.generateImage({ model: 'gpt-image-1', prompt: 'a' }),
    client.generateImage({ model: 'gpt-image-1', prompt: 'b' }),
  ]);
  await new Promise((r) => setTimeout(r, 20));
  assert.deepEqual(client.limits.image, { running: 1, queued: 1 });
  await p;
  const logs = sim.log.filter((l) => l.path === '/v1/images/generations');
  assert.equal(logs.length, 2);
  assert.ok(logs[1].time >= logs[0].time + 60, 'the second started after the first finished');
});

test('image edits need an edit-capable model: dall-e-3 (image-generation only) is refused before sending, naming the edit models', async () => {
  const real = await startSimulator({ profile: 'real' });
  try {
    const { client } = makeClient(real);
    await client.listModels();
    assert.ok(client.capabilitiesOf('dall-e-3')?.includes('image'));
    assert.ok(!client.capabilitiesOf('dall-e-3')?.includes('image-edit'), 'dall-e-3 does not edit');
    assert.ok(client.capabilitiesOf('gpt-image-1')?.includes('image-edit'));
    assert.deepEqual(client.modelsWith('image-edit'), ['gpt-image-1']);
    const e = await thrown(async () =>
      client.editImage({ model: 'dall-e-3', prompt: 'make it blue', imagePath: await pngFile() }),
    );
    assert.equal(e.detail, 'capability_mismatch');
    assert.equal(e.notSent, true);
    assert.match(e.fix, /image editing models: gpt-image-1/);
    assert.equal(real.log.filter((l) => l.path === '/v1/images/edits').length, 0, 'never sent (it would be a 400)');
  } finally {
    await real.close();
  }
});

test('a result URL that is not an image (an HTML page) or far too large is refused with a clear error', async () => {
  const { client } = makeClient(sim);
  sim.fault({ kind: 'html', path: '/files/', count: 1 });
  const e = await thrown(() => client.generateImage({ model: 'dall-e-3', prompt: 'a', responseFormat: 'url' }));
  assert.equal(e.kind, 'protocol');
  assert.match(e.message, /not an image \(text\/html from 127\.0\.0\.1/);
  sim.fault({ kind: 'hugeError', bytes: 400 * 1024 * 1024, status: 200, path: '/files/', count: 1 });
  const started = Date.now();
  const big = await thrown(() => client.generateImage({ model: 'dall-e-3', prompt: 'b', responseFormat: 'url' }));
  assert.equal(big.kind, 'payload_too_large');
  assert.match(big.message, /larger than 50 MiB, so it was not read/);
  assert.ok(Date.now() - started < 5000, 'stopped at the cap, not after 400 MB');
  assert.equal(
    (await client.generateImage({ model: 'dall-e-3', prompt: 'c', responseFormat: 'url' })).images[0].mime,
    'image/png',
    'a real image still works',
  );
});

test('video content answered 200 with a JSON error is not saved as a video, and not reported downloaded', async () => {
  const s = await startSimulator({ video: { pollsUntilInProgress: 0, pollsUntilDone: 0, outcome: 'completed' } });
  try {
    const { client } = makeClient(s);
    const task = await client.createVideo({ model: 'sora-2', prompt: 'x' });
    assert.equal((await client.pollVideo(task.id)).outcome, 'completed');
    s.fault({ kind: 'okJson', path: '/v1/videos/', count: 1 });
    const file = join(dir, 'json-error.mp4');
    const e = await thrown(() => client.downloadVideo(task.id, file));
    assert.equal(e.kind, 'protocol');
    assert.match(e.message, /not a video \(application\/json instead of a video\)/);
    assert.equal(e.gatewayMessage, 'The video is not ready yet.');
    await assert.rejects(stat(file), 'nothing saved');
    assert.equal((await client.downloadVideo(task.id, file)).outcome, 'downloaded', 'the real content still downloads');
  } finally {
    await s.close();
  }
});

test(
  'a video download that only trickles in ends at the video deadline, leaving no partial file',
  { timeout: 15_000 },
  async () => {
    const s = await startSimulator({ video: { pollsUntilInProgress: 0, pollsUntilDone: 0, outcome: 'completed' } });
    try {
      const { client } = makeClient(s, { timeouts: { videoOverallMs: 700, streamIdleMs: 60_000 } });
      const task = await client.createVideo({ model: 'sora-2', prompt: 'x' });
      assert.equal((await client.pollVideo(task.id)).outcome, 'completed');
      s.fault({ kind: 'drip', everyMs: 30, path: '/v1/videos/', count: 1 });
      const file = join(dir, 'dripped.mp4');
      const started = Date.now();
      const e = await thrown(() => client.downloadVideo(task.id, file));
      assert.ok(['timeout', 'protocol'].includes(e.kind), e.kind);
      assert.ok(Date.now() - started < 5000);
      await assert.rejects(stat(file));
    } finally {
      await s.close();
    }
  },
);
