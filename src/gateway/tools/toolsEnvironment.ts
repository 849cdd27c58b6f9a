/**
 * The ToolsEnvironment of a real machine (relay-doctor, the extension): the process environment
 * (plus additions for new terminals), the home folder, and a PATH search that never spawns.
 */
import { stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { ToolsEnvironment } from './types';

/** The first executable file named `command` on the PATH of `env` (Windows: with a PATHEXT extension). */
export async function whichOnPath(
  command: string,
  env: Record<string, string | undefined>,
  platform: NodeJS.Platform = process.platform,
): Promise<string | undefined> {
  const path = env.PATH ?? env.Path ?? '';
  const sep = platform === 'win32' ? ';' : ':';
  const exts = platform === 'win32' ? ['', ...(env.PATHEXT ?? '.COM;.EXE;.BAT;.CMD').split(';').filter(Boolean)] : [''];
  for (const dir of path.split(sep)) {
    if (!dir) continue;
    for (const ext of exts) {
      const file = join(dir, command + ext);
      try {
        const st = await stat(file);
        if (st.isFile() && (platform === 'win32' || (st.mode & 0o111) !== 0)) return file;
      } catch {
        // not there: the next folder
      }
    }
  }
  return undefined;
}

/** A ToolsEnvironment reading this machine: `env` defaults to process.env, `homeDir` to os.homedir(). */
export function nodeToolsEnvironment(
  opts: { env?: Record<string, string | undefined>; homeDir?: string; workspaceDir?: string } = {},
): ToolsEnvironment {
  const env = opts.env ?? { ...process.env };
  const out: ToolsEnvironment = {
    env,
    homeDir: opts.homeDir ?? homedir(),
    which: (command) => whichOnPath(command, env),
  };
  if (opts.workspaceDir) out.workspaceDir = opts.workspaceDir;
  return out;
}
