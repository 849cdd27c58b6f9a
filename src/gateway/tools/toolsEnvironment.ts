/**
 * The ToolsEnvironment of a real machine (relay-doctor, the extension): the process environment
 * (plus additions for new terminals), the home folder, the workspace folder and whether it is
 * trusted, the PATH search (./which.ts) and the one runner of a tool's `--version`.
 */
import { execFile } from 'node:child_process';
import { homedir } from 'node:os';
import { extname } from 'node:path';
import type { ToolsEnvironment } from './types';
import { whichOnPath } from './which';

/** A tool's `--version` is given this long, and this much output. */
const VERSION_TIMEOUT_MS = 5_000;
const VERSION_MAX_BYTES = 16 * 1024;

/**
 * How to run `<path> --version`: a Windows `.cmd` / `.bat` (npm's shims) only through cmd.exe —
 * Node refuses to start one without a shell since CVE-2024-27980 — with the path quoted, and refused
 * when it holds a character cmd.exe would still read inside quotes (`"`, `%`, `!`, a line break);
 * anything else started directly, no shell.
 */
export function versionCommand(
  path: string,
  platform: NodeJS.Platform = process.platform,
): { file: string; args: string[]; shell: boolean } | undefined {
  if (platform === 'win32' && /^\.(cmd|bat)$/i.test(extname(path))) {
    if (/["%!\r\n]/.test(path)) return undefined;
    return { file: `"${path}"`, args: ['--version'], shell: true };
  }
  return { file: path, args: ['--version'], shell: false };
}

/**
 * The first line of `<path> --version` (at most 80 characters), run in `env` with a timeout and a
 * bounded output; undefined when it fails, times out or says nothing. The one version runner of the
 * extension and relay-doctor.
 */
export function toolVersion(path: string, env: Record<string, string | undefined>): Promise<string | undefined> {
  const c = versionCommand(path);
  if (!c) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    try {
      execFile(
        c.file,
        c.args,
        { env, shell: c.shell, timeout: VERSION_TIMEOUT_MS, maxBuffer: VERSION_MAX_BYTES, windowsHide: true },
        (e, out) => {
          // more output than the bound: the first line read still says the version
          const failed = e && (e as { code?: unknown }).code !== 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER';
          const line = String(out).trim().split(/\r?\n/)[0]?.trim().slice(0, 80);
          resolve(failed || !line ? undefined : line);
        },
      );
    } catch {
      resolve(undefined);
    }
  });
}

/**
 * A ToolsEnvironment reading this machine: `env` defaults to process.env, `homeDir` to os.homedir();
 * the workspace's project files are read only when `workspaceTrusted` says so (default: not).
 */
export function nodeToolsEnvironment(
  opts: {
    env?: Record<string, string | undefined>;
    homeDir?: string;
    workspaceDir?: string;
    workspaceTrusted?: boolean;
    backupDir?: string;
  } = {},
): ToolsEnvironment {
  const env = opts.env ?? { ...process.env };
  const out: ToolsEnvironment = {
    env,
    homeDir: opts.homeDir ?? homedir(),
    workspaceTrusted: opts.workspaceTrusted ?? false,
    which: (command) => whichOnPath(command, env),
    version: (path) => toolVersion(path, env),
  };
  if (opts.workspaceDir) out.workspaceDir = opts.workspaceDir;
  if (opts.backupDir) out.backupDir = opts.backupDir;
  return out;
}
