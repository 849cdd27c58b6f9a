/**
 * Video tasks across windows, over real HTTP against the simulator: two windows sharing one
 * globalState (a write seen by the other a moment later, the last write winning, as VS Code's
 * storage does) poll and download a task once; a closed window's task is taken over when its lease
 * runs out and saved into the folder of the window that created it; a closing window leaves its
 * tasks active; updates keep the tasks' order; states are shown in words, Chinese included.
 */
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { readFileSync } from 'node:fs';
import { useTranslations, type Translations } from '../../src/gateway';
import {
  modelPickWords,
  pollMessage,
  savedImageMarkdown,
  secondsPrompt,
  sizePrompt,
  stateWord,
  taskStateLine,
  taskStatusLine,
} from '../../src/host/media/mediaWords';
import { freeFileName } from '../../src/host/media/outputFiles';
import { VideoController, type VideoUi } from '../../src/host/media/videoController';
import {
  LEASE_MS,
  TaskLeases,
  VideoTaskStore,
  type MementoLike,
  type StoredVideoTask,
  type TaskState,
} from '../../src/host/media/videoTaskStore';
import { InMemoryMemento } from '../fakes/state';
import { startSimulator, type Simulator } from '../sim/server';
import { makeClient } from '../gateway/helpers';

/** The globalState every window of a profile shares: each window reads its own copy, updated a moment after another window writes. */
class SharedState {
  readonly windows: WindowState[] = [];
  constructor(readonly delayMs: number) {}
  window(): WindowState {
    const w = new WindowState(this, this.windows[0]?.snapshot());
    this.windows.push(w);
    return w;
  }
}

class WindowState implements MementoLike {
  private readonly local: Map<string, string>;
  constructor(
    private readonly shared: SharedState,
    from: Map<string, string> | undefined,
  ) {
    this.local = new Map(from);
  }
  snapshot(): Map<string, string> {
    return new Map(this.local);
  }
  get<T>(key: string, defaultValue: T): T {
    const raw = this.local.get(key);
    return raw === undefined ? defaultValue : (JSON.parse(raw) as T);
  }
  update(key: string, value: unknown): Promise<void> {
    const raw = JSON.stringify(value);
    this.local.set(key, raw);
    setTimeout(() => {
      for (const w of this.shared.windows) if (w !== this) w.local.set(key, raw);
    }, this.shared.delayMs);
    return Promise.resolve();
  }
}

const delay = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

async function until(what: string, cond: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await delay(10);
  }
}

let sim: Simulator;
let dir: string;
before(async () => {
  sim = await startSimulator();
  dir = await mkdtemp(join(tmpdir(), 'relay-video-windows-'));
});
after(async () => {
  await sim.close();
  await rm(dir, { recursive: true, force: true });
});
beforeEach(() => sim.reset());

const clock = { now: Date.now() };

/** A window: its own client and UI, a view of the shared state, a controller. */
function openWindow(
  name: string,
  state: MementoLike,
  ownFolder: string,
  remote = '',
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>,
) {
  const { client, records } = makeClient(sim, sleep ? { sleep } : {});
  const store = new VideoTaskStore(state);
  const leases = new TaskLeases(
    store,
    name,
    () => clock.now,
    () => delay(40),
  );
  const calls = {
    dirs: [] as Array<string | undefined>,
    files: [] as string[],
    watched: [] as string[],
    errors: [] as unknown[],
  };
  const ui: VideoUi = {
    polling: (_t, _c, work) => work(() => undefined),
    downloading: (work) => work(new AbortController().signal),
    videoFile: async (task, d) => {
      calls.dirs.push(d);
      const folder = d ?? ownFolder;
      await mkdir(folder, { recursive: true });
      const taken = (n: string) =>
        stat(join(folder, n)).then(
          () => true,
          () => false,
        );
      return join(folder, await freeFileName(`${task.id}.mp4`, taken));
    },
    open: (f) => {
      calls.files.push(f);
      return Promise.resolve();
    },
    failed: () => undefined,
    keepWaiting: () => Promise.resolve(false),
    expired: () => undefined,
    notReady: () => undefined,
    alreadyWatched: (_t, where) => void calls.watched.push(where),
    error: (_s, e) => {
      calls.errors.push(e);
      return Promise.resolve();
    },
  };
  const ctl = new VideoController({ store, leases, api: () => client, ui, remote });
  return { ctl, store, leases, calls, records };
}

const videoPolls = (records: Array<{ path: string }>) => records.filter((r) => /^\/v1\/videos\/[^/]+$/.test(r.path));
const downloads = () => sim.log.filter((r) => r.path.endsWith('/content'));

async function createTask(prompt: string): Promise<StoredVideoTask> {
  const { client } = makeClient(sim);
  const v = await client.createVideo({ model: 'sora-2', prompt, seconds: 4 });
  return { id: v.id, prompt, model: 'sora-2', createdAt: Date.now(), state: 'queued' };
}

test('two windows resuming the same active task: one polls it and downloads it once, the other only shows it', async () => {
  sim.config.video = { pollsUntilInProgress: 1, pollsUntilDone: 3, outcome: 'completed' };
  clock.now = Date.now();
  const shared = new SharedState(5);
  const task = await createTask('waves in two windows');
  // Stored by a window that is gone (or by a version before leases): active, nobody holds it.
  await new VideoTaskStore(shared.window()).add(task);
  await delay(20);
  const a = openWindow('window-a', shared.window(), join(dir, 'a'));
  const b = openWindow('window-b', shared.window(), join(dir, 'b'));
  // VS Code restores both windows at once: both look for tasks to resume in the same moment.
  await Promise.all([a.ctl.tick(), b.ctl.tick()]);
  await until('the download', () => a.calls.files.length + b.calls.files.length > 0);
  await delay(200);
  assert.equal(downloads().length, 1, 'the content was downloaded once');
  assert.equal(a.calls.files.length + b.calls.files.length, 1, 'one file, in one window');
  const pollers = [a, b].filter((w) => videoPolls(w.records).length > 0);
  assert.equal(pollers.length, 1, 'one window polled the task');
  const [winner] = pollers;
  assert.equal(winner.store.get(task.id)?.state, 'downloaded');
  assert.equal(winner.store.get(task.id)?.lease, undefined, 'the lease is given up when the task ends');
  await delay(20);
  const other = winner === a ? b : a;
  assert.equal(other.store.get(task.id)?.state, 'downloaded', 'the other window sees the state');
  a.ctl.dispose();
  b.ctl.dispose();
});

test('a task another window holds is left to it; after its lease runs out (the window closed) it is taken over and saved where it was asked for', async () => {
  sim.config.video = { pollsUntilInProgress: 1, pollsUntilDone: 2, outcome: 'completed' };
  clock.now = Date.now();
  const state = new InMemoryMemento();
  const task = await createTask('a closed window');
  const asked = join(dir, 'creator-folder');
  await new VideoTaskStore(state).add({
    ...task,
    saveTo: { dir: asked, remote: '' },
    lease: { owner: 'closed-window', since: clock.now - 60_000, until: clock.now + LEASE_MS },
  });
  const b = openWindow('window-b', state, join(dir, 'b-own'));
  await b.ctl.tick();
  await b.ctl.refresh(task.id);
  assert.equal(videoPolls(b.records).length, 0, 'not polled while the other window holds it');
  assert.deepEqual(b.calls.watched, ['elsewhere'], 'Refresh says another window watches it');
  assert.equal(b.leases.holder(b.store.get(task.id)!), 'other');

  clock.now += LEASE_MS + 1; // no renewal came: the window is gone
  await b.ctl.tick();
  await until('the download', () => b.calls.files.length > 0);
  assert.deepEqual(b.calls.dirs, [asked], "into the creating window's folder");
  assert.ok(b.calls.files[0].startsWith(asked));
  assert.equal((await readFile(b.calls.files[0])).subarray(4, 8).toString('latin1'), 'ftyp');
  assert.equal(downloads().length, 1);
  b.ctl.dispose();
});

test("a window on another machine saves a taken-over task in its own folder (it cannot write the creator's)", async () => {
  sim.config.video = { pollsUntilInProgress: 1, pollsUntilDone: 2, outcome: 'completed' };
  const state = new InMemoryMemento();
  const task = await createTask('remote creator');
  await new VideoTaskStore(state).add({ ...task, saveTo: { dir: join(dir, 'on-ssh-host'), remote: 'ssh-remote' } });
  const w = openWindow('local-window', state, join(dir, 'local-own'));
  await w.ctl.tick();
  await until('the download', () => w.calls.files.length > 0);
  assert.deepEqual(w.calls.dirs, [undefined]);
  assert.ok(w.calls.files[0].startsWith(join(dir, 'local-own')));
  w.ctl.dispose();
});

test('a closing window leaves its tasks active with no lease, so another window takes them over at once', async () => {
  sim.config.video = { pollsUntilInProgress: 1, pollsUntilDone: 1000, outcome: 'completed' };
  clock.now = Date.now();
  const state = new InMemoryMemento();
  // Polls every few milliseconds, for a task that takes a thousand polls.
  const a = openWindow('window-a', state, join(dir, 'a'), '', (ms, signal) =>
    delay(Math.min(ms, 5)).then(() => signal?.throwIfAborted()),
  );
  const task = await createTask('closing window');
  await a.ctl.started(task);
  await until('polling', () => sim.log.filter((r) => r.path === `/v1/videos/${task.id}`).length >= 2);
  assert.equal(a.leases.holder(a.store.get(task.id)!), 'mine');
  a.ctl.dispose();
  await delay(50);
  const left = a.store.get(task.id)!;
  assert.ok(left.state === 'queued' || left.state === 'in_progress', `still active, not paused: ${left.state}`);
  assert.equal(left.lease, undefined, 'its lease is given up');
  const b = openWindow('window-b', state, join(dir, 'b'));
  assert.deepEqual(
    b.leases.orphans().map((t) => t.id),
    [task.id],
  );
});

test("updates keep each task in its place (the view's rows do not swap on every progress tick); a new task goes on top", async () => {
  const state = new InMemoryMemento();
  const store = new VideoTaskStore(state);
  const task = (id: string): StoredVideoTask => ({ id, prompt: id, model: 'sora-2', createdAt: 0, state: 'queued' });
  await store.add(task('first'));
  await store.add(task('second'));
  await store.add(task('third'));
  assert.deepEqual(
    store.all().map((t) => t.id),
    ['third', 'second', 'first'],
  );
  await store.patch('first', { state: 'in_progress', progress: 40 });
  await store.patch('second', { progress: 10 });
  assert.deepEqual(
    store.all().map((t) => t.id),
    ['third', 'second', 'first'],
  );
  assert.equal(store.get('first')?.progress, 40);
  assert.equal(await store.patch('gone', { progress: 1 }), undefined);
  for (let i = 0; i < 250; i++) await store.add(task(`t${i}`));
  assert.equal(store.all().length, 200, 'bounded');
});

const ALL_STATES: TaskState[] = [
  'queued',
  'in_progress',
  'completed',
  'downloaded',
  'failed',
  'timed_out',
  'expired',
  'paused',
];

test("states are shown in words, never raw (in_progress, timed_out), with the gateway's own word only beside them", () => {
  for (const s of ALL_STATES) assert.doesNotMatch(stateWord(s), /_/, s);
  assert.equal(stateWord('in_progress'), 'in progress');
  assert.equal(stateWord('timed_out'), 'timed out');
  assert.equal(taskStateLine({ state: 'queued', queuePosition: 3 }), 'queued, #3 in the queue');
  assert.equal(taskStateLine({ state: 'in_progress', progress: 41.6 }), 'in progress, 42%');
  assert.equal(taskStateLine({ state: 'downloaded', progress: 100 }), 'downloaded');
  assert.equal(taskStatusLine({ state: 'in_progress', rawStatus: 'in_progress' }), 'Status: in progress');
  assert.equal(
    taskStatusLine({ state: 'in_progress', rawStatus: 'unknown' }),
    'Status: in progress (the gateway says "unknown")',
  );
  assert.equal(pollMessage({ phase: 'queued', queuePosition: 2, progress: undefined }), 'waiting in the queue (#2)');
  assert.equal(
    pollMessage({ phase: 'in_progress', queuePosition: undefined, progress: 30 }),
    'generating the video: 30%',
  );
  assert.match(
    secondsPrompt('sora-2', '$0.50 per call'),
    /^sora-2 costs \$0\.50 per call, billed by the gateway\. Length in seconds/,
  );
  assert.match(
    sizePrompt('gpt-image-1', undefined),
    /^gpt-image-1 is billed by the gateway\. Size as <width>x<height>/,
  );
});

test('in Chinese, every state and line of the Video Tasks view is Chinese', () => {
  const root = resolve(__dirname, '../../..');
  const zh: Translations = {};
  for (const f of ['core', 'views', 'extension', 'diagnose'])
    Object.assign(zh, JSON.parse(readFileSync(join(root, `l10n/zh-cn/${f}.json`), 'utf8')) as Translations);
  useTranslations(zh);
  try {
    const hanzi = /[\u4e00-\u9fff]/;
    for (const s of ALL_STATES) assert.match(stateWord(s), hanzi, s);
    for (const line of [
      taskStateLine({ state: 'queued', queuePosition: 3 }),
      taskStateLine({ state: 'in_progress', progress: 50 }),
      taskStatusLine({ state: 'in_progress', rawStatus: 'unknown' }),
      pollMessage({ phase: 'queued', queuePosition: 2, progress: undefined }),
      pollMessage({ phase: 'in_progress', queuePosition: undefined, progress: 30 }),
      secondsPrompt('sora-2', '$0.50'),
      modelPickWords('image-edit').pick,
      savedImageMarkdown('x', 'file:///x.png', 'x.png'),
      sizePrompt('gpt-image-1', undefined),
    ])
      assert.match(line, hanzi, line);
  } finally {
    useTranslations(undefined);
  }
});

test("the model pick names the capability in words and the setting that skips it; @relay's /image says where it saved, as one sentence", () => {
  assert.equal(
    modelPickWords('image-edit').pick,
    'Pick an image edit model (set modelRelay.models.imageEdit to skip this)',
  );
  assert.equal(modelPickWords('video').typeId, 'The video model id');
  const md = savedImageMarkdown('a [lighthouse]', 'file:///w/a.png', '.model-relay/images/a.png');
  assert.equal(md, '![a lighthouse](file:///w/a.png)\n\nSaved to [.model-relay/images/a.png](file:///w/a.png).');
});
