/**
 * dist/cli.js, the program users start. `--version` and `--help` are answered here, before the
 * core (undici, zod, the diagnosis engine: dist/cli-core.js) is loaded, so they start about as
 * fast as Node itself; everything else requires the core on the spot. `--help` follows the locale
 * (locale.ts reads the Chinese bundle only when LC_ALL / LC_MESSAGES / LANG ask for it).
 */
import { isHelpFlag, isVersionFlag, version } from './usage';

type Io = import('./main').CliIo;

/** Runs relay-doctor with these arguments; resolves to the exit code. */
export async function run(
  argv: string[],
  io: Omit<Io, 'argv'> = { env: process.env, cwd: process.cwd(), stdout: process.stdout, stderr: process.stderr },
): Promise<number> {
  if (argv.length === 1 && isVersionFlag(argv[0])) {
    io.stdout.write(`relay-doctor ${version()}\n`);
    return 0;
  }
  if (argv.length === 1 && isHelpFlag(argv[0])) {
    // Required here, not imported: --version never loads the translation code or the bundle.
    /* eslint-disable @typescript-eslint/no-require-imports */
    (require('./locale') as typeof import('./locale')).applyLocale(io.env);
    io.stdout.write((require('./help') as typeof import('./help')).usage());
    return 0;
  }
  // The bundler maps './main' to dist/cli-core.js (scripts/build.mjs): loaded only from here on.
  const { main } = require('./main') as typeof import('./main');
  /* eslint-enable @typescript-eslint/no-require-imports */
  return main({ ...io, argv });
}

if (require.main === module) {
  void run(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
