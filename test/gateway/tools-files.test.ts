/**
 * Every tool file read is bounded (issue 36 §1, src/gateway/tools/toolFile.ts): a file an attacker
 * controls — a symlink to /dev/zero, a FIFO nobody writes to, a 20 MB file, a folder — is refused at
 * once, and the tool's state names it. Each tool's resolver (and so the row Diagnose and relay-doctor
 * show for it), the probe's credential read and the re-read before a write all go through the one
 * reader. Each test is bounded by a timeout, so a read that hangs fails instead of waiting forever.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, constants, mkdirSync, openSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { applyEdits, planSetUp, toolStatus } from '../../src/gateway/tools';
import { probeTargetOf } from '../../src/gateway/tools/probeTarget';
import { MAX_TOOL_FILE_BYTES, readBoundedFile } from '../../src/gateway/tools/toolFile';
import { toolRow } from '../../src/gateway/diagnose/toolCheck';
import type { ToolId } from '../../src/gateway/tools/types';
import { gateway, ROOT, sandbox, TOKEN, type Sandbox } from './toolsFixture';

/** Each test must be done well within this: a read that waits on a FIFO or reads /dev/zero fails it. */
const T = { timeout: 5_000, skip: process.platform === 'win32' ? 'POSIX special files' : false };
const fifos: string[] = [];

/** Any reader left waiting on a FIFO (a failing run) is released, so the test process can end. */
after(() => {
  for (const f of fifos)
    try {
      closeSync(openSync(f, constants.O_RDWR | constants.O_NONBLOCK));
    } catch {
      // gone with its sandbox
    }
});

type Hostile = 'devzero' | 'fifo' | 'huge' | 'folder';
const HOSTILE: Hostile[] = ['devzero', 'fifo', 'huge', 'folder'];

/** Puts a hostile thing at `path` (folders created). */
function plant(path: string, kind: Hostile): void {
  mkdirSync(dirname(path), { recursive: true });
  if (kind === 'devzero') symlinkSync('/dev/zero', path);
  else if (kind === 'fifo') {
    execFileSync('mkfifo', [path]);
    fifos.push(path);
  } else if (kind === 'huge') {
    writeFileSync(path, '');
    truncateSync(path, 20 * 1024 * 1024);
  } else mkdirSync(path);
}

const SAYS: Record<Hostile, RegExp> = {
  devzero: /is a link to \/dev\/zero, which is a device, not a regular file, so it was not read/,
  fifo: /is a named pipe \(FIFO\), not a regular file, so it was not read/,
  huge: /is larger than 1 MiB, so it was not read/,
  folder: /is a folder, not a regular file, so it was not read/,
};

test(
  'the reader: each hostile file refused at once, with its reason; a regular file read with its hash',
  T,
  async () => {
    const s = sandbox();
    try {
      for (const kind of HOSTILE) {
        const p = join(s.root, `x-${kind}.json`);
        plant(p, kind);
        const started = Date.now();
        const r = await readBoundedFile(p);
        assert.ok(Date.now() - started < 1000, `${kind}: refused at once`);
        assert.equal(r.text, undefined, kind);
        assert.match(r.error ?? '', SAYS[kind], kind);
        assert.ok(r.error!.includes(p), `${kind}: the file is named`);
      }
      const ok = s.put('ok.json', '{"a":1}');
      const r = await readBoundedFile(ok);
      assert.equal(r.text, '{"a":1}');
      assert.match(r.hash ?? '', /^[0-9a-f]{64}$/);
      assert.deepEqual(await readBoundedFile(join(s.root, 'absent.json')), {
        path: join(s.root, 'absent.json'),
        text: undefined,
      });
      // a link to nothing is no file, as for the tool
      symlinkSync(join(s.root, 'nowhere'), join(s.root, 'dangling.json'));
      assert.equal((await readBoundedFile(join(s.root, 'dangling.json'))).error, undefined);
      // a link to a regular file is followed
      symlinkSync(ok, join(s.root, 'link.json'));
      assert.equal((await readBoundedFile(join(s.root, 'link.json'))).text, '{"a":1}');
    } finally {
      s.done();
    }
  },
);

test(
  'a file whose size lies (a /proc file says 0 bytes) is still cut at the limit: never more than N + 1 bytes read',
  { ...T, skip: process.platform !== 'linux' ? 'Linux /proc' : false },
  async () => {
    const r = await readBoundedFile('/proc/self/status', 64);
    assert.equal(r.text, undefined);
    assert.match(r.error ?? '', /larger than 1 MiB|not read/);
    assert.ok((await readBoundedFile('/proc/self/status')).text?.includes('Name:'), 'within the limit it is read');
    assert.equal(MAX_TOOL_FILE_BYTES, 1024 * 1024);
  },
);

/** Where each tool reads a file a repository (or the user's own folder) can hold, and what its state should show. */
const PLACES: Array<{ tool: ToolId; path: (s: Sandbox) => string }> = [
  { tool: 'claude-code', path: (s) => join(s.ws, '.claude/settings.json') },
  { tool: 'claude-code', path: (s) => join(s.ws, '.claude/settings.local.json') },
  { tool: 'claude-code', path: (s) => join(s.home, '.claude/settings.json') },
  { tool: 'codex', path: (s) => join(s.home, '.codex/config.toml') },
  { tool: 'gemini-cli', path: (s) => join(s.ws, '.gemini/settings.json') },
  { tool: 'gemini-cli', path: (s) => join(s.ws, '.gemini/.env') },
  { tool: 'gemini-cli', path: (s) => join(s.ws, '.env') },
  { tool: 'opencode', path: (s) => join(s.ws, 'opencode.json') },
  { tool: 'opencode', path: (s) => join(s.ws, '.opencode/opencode.jsonc') },
  { tool: 'opencode', path: (s) => join(s.home, '.config/opencode/opencode.json') },
];

for (const kind of HOSTILE)
  test(`every tool's files: ${kind} is refused promptly and named in the tool's problems`, T, async () => {
    for (const place of PLACES) {
      const s = sandbox({ ANTHROPIC_BASE_URL: ROOT, ANTHROPIC_AUTH_TOKEN: TOKEN });
      try {
        const p = place.path(s);
        plant(p, kind);
        const st = await toolStatus(place.tool, s.env, gateway());
        const problems = st.resolved?.problems ?? [];
        const named = problems.find((x) => x.includes(p));
        assert.ok(named, `${place.tool} ${p}: ${JSON.stringify(problems)}`);
        assert.match(named, SAYS[kind]);
      } finally {
        s.done();
      }
    }
  });

test(
  'the probe reads a credential from a file through the same reader: a FIFO gives no value, at once',
  T,
  async () => {
    const s = sandbox();
    try {
      const p = join(s.ws, 'opencode.json');
      plant(p, 'fifo');
      const target = await probeTargetOf(
        {
          tool: 'opencode',
          label: 'opencode',
          state: 'set-up',
          resolved: {
            baseUrl: { value: `${ROOT}/v1`, from: { kind: 'file', where: p, key: 'provider.x.options.baseURL' } },
            auth: {
              header: 'authorization',
              masked: 'x',
              from: { kind: 'file', where: p, key: 'provider.x.options.apiKey' },
            },
            overrides: [],
            conflicts: [],
            problems: [],
          },
        },
        {},
      );
      assert.equal(target.credential, undefined);
    } finally {
      s.done();
    }
  },
);

test("Claude Code's Diagnose and relay-doctor row names them, and sends nothing to read them", T, async () => {
  for (const kind of HOSTILE) {
    const s = sandbox({ ANTHROPIC_BASE_URL: ROOT, ANTHROPIC_AUTH_TOKEN: TOKEN });
    try {
      const p = join(s.ws, '.claude/settings.json');
      plant(p, kind);
      const status = await toolStatus('claude-code', s.env, gateway());
      const { outcome, probe } = await toolRow(status, {
        env: s.env.env,
        probe: false,
        send: () => assert.fail('no request while probes are off'),
      });
      assert.equal(probe, undefined, kind);
      const named = outcome.details?.find((d) => d.includes(p));
      assert.ok(named, `${kind}: ${JSON.stringify(outcome.details)}`);
      assert.match(named, SAYS[kind], kind);
    } finally {
      s.done();
    }
  }
});

test(
  'a write re-reads the file through the reader: one swapped for a FIFO after the diff is left alone',
  T,
  async () => {
    const s = sandbox();
    try {
      const plan = await planSetUp('opencode', s.env, gateway(), {});
      const target = plan.edits[0].path;
      plant(target, 'fifo');
      const [out] = await applyEdits(plan.edits, { homeDir: s.home, backupDir: s.env.backupDir, secrets: [TOKEN] });
      assert.equal(out.written, false);
      assert.match(out.written ? '' : out.message, SAYS.fifo);
    } finally {
      s.done();
    }
  },
);
