/**
 * Where generated media may be written: inside the workspace folder only (a repository's settings
 * must not steer gateway bytes elsewhere, e.g. with `../`), and never over an existing file.
 * Plain Node, no `vscode`.
 */
import { isAbsolute, relative, resolve } from 'node:path';
import { t } from '../../gateway/l10n';

/** The resolved folder, or why it is refused. */
export function resolveOutputFolder(
  workspaceRoot: string,
  setting: string,
  settingName: string,
): { path: string } | { error: string } {
  const root = resolve(workspaceRoot);
  const path = resolve(root, setting);
  const rel = relative(root, path);
  if (rel === '' || (!rel.startsWith('..') && !isAbsolute(rel))) return { path };
  return {
    error: t(
      '{0} ("{1}") points outside the workspace folder ({2}); generated files are saved only inside it. Use a relative folder such as .model-relay/images.',
      settingName,
      setting,
      path,
    ),
  };
}

/**
 * The folder media of one kind are saved to: `setting` inside the workspace folder, or, in a window
 * without a local workspace folder, inside the extension's storage (leading `../` dropped there).
 */
export function mediaFolder(
  workspace: string | undefined,
  storage: string,
  setting: string,
  settingName: string,
): { path: string } | { error: string } {
  return workspace
    ? resolveOutputFolder(workspace, setting, settingName)
    : resolveOutputFolder(storage, setting.replace(/^(\.\.?[\\/])+/, ''), settingName);
}

/** How many numbered names are tried before giving up. */
const MAX_TRIES = 1000;

/** `name`, or `name-2.ext`, `name-3.ext`… — the first that `taken` says is free. */
export async function freeFileName(name: string, taken: (candidate: string) => Promise<boolean>): Promise<string> {
  const dot = name.lastIndexOf('.');
  const [stem, ext] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
  for (let i = 1; i <= MAX_TRIES; i++) {
    const candidate = i === 1 ? name : `${stem}-${i}${ext}`;
    if (!(await taken(candidate))) return candidate;
  }
  throw new Error(t('No free file name for {0} after {1} tries.', name, MAX_TRIES));
}
