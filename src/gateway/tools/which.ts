/**
 * Finds an executable on a PATH as a shell does, without spawning: isaacs' `which` (npm's own), on
 * the PATH of the environment given (a new terminal's, not this process's). On Windows it tries each
 * PATHEXT ending and never the bare name — npm puts an extensionless sh script (`claude`) beside the
 * `claude.cmd` a Windows shell runs. The one PATH search of relay-doctor, the tools module and the extension.
 */
import { delimiter as hostDelimiter, dirname, resolve } from 'node:path';
import which from 'which';

/** The most PATH entries looked at (a PATH is bounded input too). */
const MAX_DIRS = 256;

/**
 * The first executable file named `command` on the PATH of `env` (`PATH`, or Windows' `Path`);
 * undefined when there is none, or when `command` is a path rather than a name. On Windows, `which`
 * also looks in the current folder first (as cmd.exe does, but not PowerShell, the terminals'
 * default): a file found only there — the folder relay-doctor was started in may be a repository's —
 * does not count.
 */
export async function whichOnPath(
  command: string,
  env: Record<string, string | undefined>,
): Promise<string | undefined> {
  if (!command || /[\\/]/.test(command)) return undefined;
  const win = process.platform === 'win32';
  const delimiter = win ? ';' : hostDelimiter;
  const dirs = (env.PATH ?? env.Path ?? '').split(delimiter).filter(Boolean).slice(0, MAX_DIRS);
  if (!dirs.length) return undefined;
  const found = await which(command, {
    path: dirs.join(delimiter),
    ...(win ? { pathExt: env.PATHEXT ?? env.PathExt ?? '.COM;.EXE;.BAT;.CMD' } : {}),
    delimiter,
    all: true,
    nothrow: true,
  });
  const cwd = resolve(process.cwd());
  const onPath = (file: string) =>
    !win || resolve(dirname(file)).toLowerCase() !== cwd.toLowerCase() || dirs.some((d) => same(d, cwd));
  return (found ?? []).find(onPath);
}

function same(dir: string, cwd: string): boolean {
  return resolve(dir.replace(/^"(.*)"$/, '$1')).toLowerCase() === cwd.toLowerCase();
}
