/**
 * Finds an executable on a PATH (the PATH new terminals get), as a shell does: the first directory
 * holding an executable file of that name. Plain Node; Windows' PATHEXT extensions are tried there.
 */
import { access, constants, stat } from 'node:fs/promises';
import { delimiter, join } from 'node:path';

/** The most PATH entries looked at (a PATH is bounded input too). */
const MAX_DIRS = 256;

async function executable(path: string): Promise<boolean> {
  try {
    if (!(await stat(path)).isFile()) return false;
    await access(path, process.platform === 'win32' ? constants.F_OK : constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export async function whichOnPath(
  command: string,
  path: string | undefined,
  pathExt: string | undefined = process.platform === 'win32' ? process.env.PATHEXT : undefined,
): Promise<string | undefined> {
  if (!command || /[\\/]/.test(command)) return undefined;
  const exts = pathExt ? ['', ...pathExt.split(';').filter(Boolean)] : [''];
  for (const dir of (path ?? '').split(delimiter).filter(Boolean).slice(0, MAX_DIRS))
    for (const ext of exts) {
      const candidate = join(dir, command + ext);
      if (await executable(candidate)) return candidate;
    }
  return undefined;
}
