/**
 * The ToolsEnvironment of a real machine (relay-doctor, the extension): the process environment
 * (plus additions for new terminals), the home folder, the workspace folder and whether it is
 * trusted, and a PATH search that never spawns.
 */
import { homedir } from 'node:os';
import type { ToolsEnvironment } from './types';
import { whichOnPath } from './which';

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
  } = {},
): ToolsEnvironment {
  const env = opts.env ?? { ...process.env };
  const out: ToolsEnvironment = {
    env,
    homeDir: opts.homeDir ?? homedir(),
    workspaceTrusted: opts.workspaceTrusted ?? false,
    which: (command) => whichOnPath(command, env),
  };
  if (opts.workspaceDir) out.workspaceDir = opts.workspaceDir;
  return out;
}
