/** Finds a command on a PATH, as a shell would (Windows: with its PATHEXT endings). */
import { access, constants } from 'node:fs/promises';
import { delimiter, join } from 'node:path';

export function whichOnPath(env: Record<string, string | undefined>): (command: string) => Promise<string | undefined> {
  const dirs = (env.PATH ?? env.Path ?? '').split(delimiter).filter(Boolean);
  const endings = process.platform === 'win32' ? (env.PATHEXT ?? '.EXE;.CMD;.BAT').split(';') : [''];
  return async (command) => {
    for (const dir of dirs)
      for (const end of endings) {
        const path = join(dir, `${command}${end}`);
        try {
          await access(path, constants.X_OK);
          return path;
        } catch {
          /* not here */
        }
      }
    return undefined;
  };
}
