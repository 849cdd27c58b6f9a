/**
 * The part of VS Code's built-in Git extension API (`vscode.git`, `getAPI(1)`; extensions/git/src/api/git.d.ts)
 * Generate Commit Message uses, and which repository it works on: the one whose Source Control title or
 * input box was clicked (the command's argument carries its `rootUri`), else the one selected in the
 * Source Control view, else the active editor's, else the first. Each way it can be missing has its
 * own words: no Git extension, Git disabled, no repository.
 */
import * as vscode from 'vscode';

export interface GitCommit {
  hash: string;
  message: string;
}

export interface GitChange {
  uri: vscode.Uri;
  /** 7: untracked (extensions/git/src/api/git.d.ts, Status.UNTRACKED) */
  status: number;
}

export interface GitRepository {
  rootUri: vscode.Uri;
  inputBox: { value: string };
  state: { indexChanges: GitChange[]; workingTreeChanges: GitChange[]; untrackedChanges?: GitChange[] };
  ui?: { selected: boolean };
  diff(cached?: boolean): Promise<string>;
  log(options?: { maxEntries?: number }): Promise<GitCommit[]>;
}

interface GitApi {
  state: 'uninitialized' | 'initialized';
  onDidChangeState?: vscode.Event<'uninitialized' | 'initialized'>;
  repositories: GitRepository[];
  getRepository(uri: vscode.Uri): GitRepository | null;
}

interface GitExtension {
  enabled: boolean;
  getAPI(version: 1): GitApi;
}

/** Untracked, per the Git API's Status enum. */
export const UNTRACKED = 7;

/** How long to wait for the Git extension to find the repositories after it starts. */
const INIT_WAIT_MS = 5_000;

/** The Git API, initialised; or the words for why it is not there. */
async function gitApi(): Promise<GitApi | string> {
  const ext = vscode.extensions.getExtension<GitExtension>('vscode.git');
  if (!ext)
    return vscode.l10n.t(
      "Model Relay: Generate Commit Message needs VS Code's built-in Git extension, which is not installed here. Install or enable it, then try again.",
    );
  const exports = ext.isActive ? ext.exports : await ext.activate();
  if (!exports.enabled)
    return vscode.l10n.t(
      "Model Relay: VS Code's Git support is turned off (git.enabled is false). Turn it on, then try again.",
    );
  const api = exports.getAPI(1);
  if (api.state !== 'initialized' && api.onDidChangeState) {
    const onChange = api.onDidChangeState;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, INIT_WAIT_MS);
      const sub = onChange((s) => s === 'initialized' && done());
      function done() {
        clearTimeout(timer);
        sub.dispose();
        resolve();
      }
    });
  }
  return api;
}

/** The `rootUri` a Source Control menu passes (a SourceControl), or a Uri passed directly. */
function rootOf(arg: unknown): vscode.Uri | undefined {
  if (arg instanceof vscode.Uri) return arg;
  const root = arg && typeof arg === 'object' ? (arg as { rootUri?: unknown }).rootUri : undefined;
  return root instanceof vscode.Uri ? root : undefined;
}

/** The repository to describe, or the words for why there is none. */
export async function pickRepository(arg: unknown): Promise<GitRepository | string> {
  const api = await gitApi();
  if (typeof api === 'string') return api;
  const root = rootOf(arg);
  const editor = vscode.window.activeTextEditor?.document.uri;
  const repo =
    (root && api.getRepository(root)) ||
    api.repositories.find((r) => r.ui?.selected) ||
    (editor && api.getRepository(editor)) ||
    api.repositories[0];
  return (
    repo ??
    vscode.l10n.t(
      'Model Relay: no Git repository is open. Open a folder that is a Git repository (or run Git: Initialize Repository), then try again.',
    )
  );
}
