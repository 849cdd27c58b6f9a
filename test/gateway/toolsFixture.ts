/** Temporary homes and workspaces for the tools module's tests: nothing touches the real home or PATH. */
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { maskToken } from '../../src/gateway/mask';
import type { ToolGateway, ToolsEnvironment } from '../../src/gateway/tools/types';

export const TOKEN = 'sk-relaytoken0123456789abcdefWXYZ';
export const OTHER_TOKEN = 'sk-othertoken9876543210zyxwvuABCD';
export const ROOT = 'https://gw.example.com';

export function gateway(over: Partial<ToolGateway> = {}): ToolGateway {
  return {
    baseUrl: ROOT,
    name: 'Example Relay',
    maskedToken: maskToken(TOKEN),
    id: 'example',
    providerId: 'model-relay',
    tokenVariable: 'MODEL_RELAY_API_KEY',
    models: [
      { id: 'claude-sonnet-4-5', surfaces: ['compatible', 'native'] },
      { id: 'claude-haiku-4-5', surfaces: ['native'] },
      { id: 'gpt-5.5', surfaces: ['compatible', 'responses'] },
      { id: 'gemini-2.5-pro', surfaces: ['compatible', 'gemini'] },
      { id: 'deepseek-v4', surfaces: ['compatible'] },
    ],
    ...over,
  };
}

export interface Sandbox {
  root: string;
  home: string;
  ws: string;
  env: ToolsEnvironment & { backupDir: string };
  /** writes a file (folders created), relative to the sandbox root or absolute */
  put(path: string, text: string): string;
  get(path: string): string | undefined;
  done(): void;
}

/** A sandbox with home/ and ws/, every tool "installed" unless `installed` says otherwise. */
export function sandbox(
  env: Record<string, string | undefined> = {},
  installed: string[] = ['claude', 'codex', 'gemini', 'opencode'],
): Sandbox {
  const root = mkdtempSync(join(tmpdir(), 'mr-tools-'));
  const home = join(root, 'home');
  const ws = join(home, 'project');
  mkdirSync(ws, { recursive: true });
  const abs = (p: string) => (p.startsWith('/') ? p : join(root, p));
  return {
    root,
    home,
    ws,
    env: {
      env,
      homeDir: home,
      workspaceDir: ws,
      // the project's files are read (the untrusted case: test/gateway/tools-trust.test.ts)
      workspaceTrusted: true,
      which: (cmd) => Promise.resolve(installed.includes(cmd) ? `/usr/local/bin/${cmd}` : undefined),
      systemFiles: { claudeManagedSettings: null, geminiSystemSettings: null },
      // the extension's global storage: outside the home folder and any repository
      backupDir: join(root, 'storage/tool-backups'),
    },
    put(path, text) {
      const p = abs(path);
      mkdirSync(dirname(p), { recursive: true });
      writeFileSync(p, text);
      return p;
    },
    get(path) {
      const p = abs(path);
      return existsSync(p) ? readFileSync(p, 'utf8') : undefined;
    },
    done() {
      rmSync(root, { recursive: true, force: true });
    },
  };
}
