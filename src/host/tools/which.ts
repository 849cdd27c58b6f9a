/**
 * The extension's PATH search, in its call shape (a PATH string): the one implementation is the
 * core's (src/gateway/tools/which.ts). Kept only until src/extension/tools/toolsSetup.ts imports
 * that one directly.
 */
import { whichOnPath as onPath } from '../../gateway/tools/which';

export function whichOnPath(command: string, path: string | undefined): Promise<string | undefined> {
  return onPath(command, { PATH: path, PATHEXT: process.env.PATHEXT });
}
