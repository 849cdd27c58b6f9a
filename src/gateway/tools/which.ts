/**
 * Finds an executable on a PATH as a shell does, without spawning: the first folder holding an
 * executable file of that name (Windows: also with each PATHEXT ending). The one PATH search of
 * relay-doctor, the tools module and the extension.
 */
import { access, constants, stat } from 'node:fs/promises';
import { join } from 'node:path';

/** The most PATH entries looked at (a PATH is bounded input too). */
const MAX_DIRS = 256;

async function executable(path: string, platform: NodeJS.Platform): Promise<boolean> {
  try {
    const st = await stat(path);
    if (!st.isFile()) return false;
    if (platform === 'win32') return true;
    await access(path, constants.X_OK);
    return (st.mode & 0o111) !== 0;
  } catch {
    return false;
  }
}

/**
 * The first executable file named `command` on the PATH of `env` (`PATH`, or Windows' `Path`);
 * undefined when there is none, or when `command` is a path rather than a name.
 */
export async function whichOnPath(
  command: string,
  env: Record<string, string | undefined>,
  platform: NodeJS.Platform = process.platform,
): Promise<string | undefined> {
  if (!command || /[\\/]/.test(command)) return undefined;
  const win = platform === 'win32';
  const exts = win ? ['', ...(env.PATHEXT ?? '.COM;.EXE;.BAT;.CMD').split(';').filter(Boolean)] : [''];
  const dirs = (env.PATH ?? env.Path ?? '').split(win ? ';' : ':').filter(Boolean);
  for (const dir of dirs.slice(0, MAX_DIRS))
    for (const ext of exts) {
      const file = join(dir, command + ext);
      if (await executable(file, platform)) return file;
    }
  return undefined;
}
