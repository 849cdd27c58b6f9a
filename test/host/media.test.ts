/**
 * Where media are written (inside the workspace, never over a file), one poller per video task, and
 * cancellation tokens turned into AbortSignals without leaving listeners behind.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { abortOn, withAbort } from '../../src/host/cancellation';
import { freeFileName, mediaFolder, resolveOutputFolder } from '../../src/host/media/outputFiles';
import { TaskPollers } from '../../src/host/media/taskPollers';

test('output folders: inside the workspace only', () => {
  const root = '/work/project';
  assert.deepEqual(resolveOutputFolder(root, '.model-relay/images', 's'), {
    path: '/work/project/.model-relay/images',
  });
  assert.deepEqual(resolveOutputFolder(root, 'out/../media', 's'), { path: '/work/project/media' });
  for (const evil of ['../../.config/autostart', '/home/user/.config/autostart', '.model-relay/../../elsewhere']) {
    const r = resolveOutputFolder(root, evil, 'modelRelay.images.outputFolder');
    assert.ok('error' in r, evil);
    assert.match(r.error, /modelRelay\.images\.outputFolder .* points outside the workspace folder/);
  }
});

test('saved media never overwrite: the next free numbered name', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'relay-names-'));
  try {
    const taken = async (n: string) =>
      stat(join(dir, n)).then(
        () => true,
        () => false,
      );
    assert.equal(await freeFileName('a-cat.png', taken), 'a-cat.png');
    await writeFile(join(dir, 'a-cat.png'), 'x');
    assert.equal(await freeFileName('a-cat.png', taken), 'a-cat-2.png');
    await writeFile(join(dir, 'a-cat-2.png'), 'x');
    assert.equal(await freeFileName('a-cat.png', taken), 'a-cat-3.png');
    assert.equal(await freeFileName('noext', async (n) => n === 'noext'), 'noext-2');
    await assert.rejects(
      freeFileName('x.png', async () => true),
      /No free file name/,
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('one poller per task id: a second claim is refused; an old poller ending keeps the new one', () => {
  const p = new TaskPollers();
  const first = p.claim('task_1')!;
  assert.ok(first);
  assert.equal(p.claim('task_1'), undefined, 'a second watch of a held id is refused');
  // "Keep Waiting": the first poller hands over, a new one claims, then the first one's finally runs.
  p.release('task_1', first);
  const second = p.claim('task_1')!;
  assert.ok(second);
  p.release('task_1', first);
  assert.ok(p.isPolled('task_1'), 'the old poller did not remove the new owner');
  assert.equal(p.claim('task_1'), undefined, 'so no duplicate watch can start');
  p.stopAll();
  assert.equal(second.signal.aborted, true, 'the new poller can still be cancelled');
  assert.equal(p.isPolled('task_1'), false);
});

test('the media folder: the setting inside the workspace, else inside the extension storage (leading ../ dropped there)', () => {
  assert.deepEqual(mediaFolder('/work/project', '/storage', '.model-relay/videos', 's'), {
    path: '/work/project/.model-relay/videos',
  });
  assert.deepEqual(mediaFolder(undefined, '/storage', '../../videos', 's'), { path: '/storage/videos' });
  assert.ok('error' in mediaFolder('/work/project', '/storage', '../elsewhere', 'modelRelay.videos.outputFolder'));
});

/** A CancellationToken as VS Code hands one out, counting its listeners. */
function fakeToken() {
  const listeners = new Set<(e: unknown) => unknown>();
  return {
    listeners,
    isCancellationRequested: false,
    onCancellationRequested(l: (e: unknown) => unknown) {
      listeners.add(l);
      return { dispose: () => listeners.delete(l) };
    },
    cancel() {
      this.isCancellationRequested = true;
      for (const l of listeners) l(undefined);
    },
  };
}

test('a cancellation token as an AbortSignal: Cancel aborts it, and the subscription ends with the work', async () => {
  const token = fakeToken();
  // A long-lived token (a chat request's) sees many calls: none of them leaves a listener behind.
  for (let i = 0; i < 3; i++) assert.equal(await withAbort(token, async (signal) => signal.aborted), false);
  assert.equal(token.listeners.size, 0);
  await assert.rejects(
    withAbort(token, (signal) => Promise.reject(new Error(String(signal.aborted)))),
    /false/,
  );
  assert.equal(token.listeners.size, 0, 'a failure lets go too');
  const held = abortOn(token);
  assert.equal(token.listeners.size, 1);
  token.cancel();
  assert.equal(held.signal.aborted, true);
  held.dispose();
  assert.equal(token.listeners.size, 0);
  assert.equal(abortOn(token).signal.aborted, true, 'a token cancelled already gives an aborted signal');
});
