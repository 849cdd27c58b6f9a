/**
 * The VS Code side of Set Up Tools… (src/host/tools/setUpTools.ts): quick picks, messages, a new
 * terminal, and the diff shown before any file write — each edit opened with `vscode.diff` between
 * two read-only virtual documents (scheme model-relay-diff: the file before and after), then a modal
 * "Apply / Cancel". The documents are kept only for the plan on show (bounded).
 */
import * as vscode from 'vscode';
import { toolLabel } from '../../gateway/tools';
import type { ToolPlan } from '../../gateway/tools/types';
import type { PickRow, ToolsUi } from '../../host/tools/setUpTools';
import { Disposable } from '../disposable';

export const DIFF_SCHEME = 'model-relay-diff';
/** The most documents kept (a plan has a few edits; older ones are dropped). */
const MAX_DOCS = 32;

/** Read-only before/after documents of the edits on show. */
export class DiffDocuments extends Disposable implements vscode.TextDocumentContentProvider {
  private readonly texts = new Map<string, string>();
  private seq = 0;

  constructor() {
    super();
    this._register(vscode.workspace.registerTextDocumentContentProvider(DIFF_SCHEME, this));
  }

  /** A document holding `text`, named after the file (the tab shows it). */
  add(path: string, side: 'before' | 'after', text: string): vscode.Uri {
    const uri = vscode.Uri.from({
      scheme: DIFF_SCHEME,
      path: path.startsWith('/') ? path : `/${path}`,
      query: `${side}-${++this.seq}`,
    });
    this.texts.set(uri.toString(), text);
    while (this.texts.size > MAX_DOCS) this.texts.delete(this.texts.keys().next().value!);
    return uri;
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? '';
  }
}

export function vscodeToolsUi(docs: DiffDocuments): ToolsUi {
  return {
    async pick<T>(rows: Array<PickRow<T>>, title: string, placeholder?: string): Promise<T | undefined> {
      const items = rows.map((r) => ({ label: r.label, description: r.description, detail: r.detail, row: r }));
      const picked = await vscode.window.showQuickPick(items, {
        title,
        placeHolder: placeholder,
        matchOnDescription: true,
        matchOnDetail: true,
      });
      return picked?.row.value;
    },
    async confirm(plan: ToolPlan, title: string): Promise<boolean> {
      for (const e of plan.edits) {
        const before = docs.add(e.path, 'before', e.before ?? '');
        const after = docs.add(e.path, 'after', e.after);
        await vscode.commands.executeCommand(
          'vscode.diff',
          before,
          after,
          vscode.l10n.t('{0}: {1} (before ↔ after)', title, e.path),
          { preview: false },
        );
      }
      const apply = vscode.l10n.t('Apply');
      const detail = [...plan.edits.map((e) => `${e.path}: ${e.summary}`), ...plan.notes].join('\n');
      const answer = await vscode.window.showWarningMessage(
        vscode.l10n.t('{0}: apply the changes shown in the diff? A backup of each file is kept.', title),
        { modal: true, detail },
        apply,
      );
      return answer === apply;
    },
    info: (message, ...buttons) => Promise.resolve(vscode.window.showInformationMessage(message, ...buttons)),
    error: (message) => void vscode.window.showErrorMessage(message),
    openTerminal: (tool) =>
      vscode.window.createTerminal({ name: vscode.l10n.t('{0} (Model Relay)', toolLabel(tool)) }).show(),
  };
}
