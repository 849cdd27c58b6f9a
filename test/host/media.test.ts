/** Where media are written (inside the workspace, never over a file) and one poller per video task. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freeFileName, resolveOutputFolder } from '../../src/host/media/outputFiles';
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
