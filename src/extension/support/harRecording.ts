/**
 * Record HTTP Archive (off by default): the command asks how many of the next gateway requests to
 * record and whether to include bodies, a status bar item shows the recording while it is on (click:
 * stop and save), and when it ends — the N-th request finished, or stopped — a save dialog puts the
 * HAR 1.2 file where the user chooses. The recording itself is src/host/support/harRecorder.ts.
 */
import * as vscode from 'vscode';
import { homedir } from 'node:os';
import type { HarLog } from '../../gateway';
import { CommandId } from '../../host/commandIds';
import {
  HAR_MAX_REQUESTS,
  HarRecorder,
  harFileName,
  parseHarCount,
  type HarRecorderState,
} from '../../host/support/harRecorder';
import type { Registrar } from '../lazy/registrar';

/** The context key the command palette shows Record or Stop by. */
const RECORDING_CONTEXT = 'modelRelay.recordingHttpArchive';

export function registerHarRecording(context: vscode.ExtensionContext, hub: Registrar): void {
  const version = (context.extension.packageJSON as { version?: string }).version ?? '';
  const item = vscode.window.createStatusBarItem('modelRelay.httpArchive', vscode.StatusBarAlignment.Right, 99);
  item.name = vscode.l10n.t('Model Relay: HTTP Archive recording');
  item.command = CommandId.StopHttpArchive;
  const recorder = new HarRecorder(
    { name: 'Model Relay', version },
    {
      onChange: (s) => showState(item, s),
      onComplete: (har) => void save(har).catch(saveFailed),
    },
  );
  context.subscriptions.push(
    item,
    { dispose: () => recorder.dispose() },
    hub.command(CommandId.RecordHttpArchive, () => start(recorder)),
    hub.command(CommandId.StopHttpArchive, () => stop(recorder).catch(saveFailed)),
  );
}

function showState(item: vscode.StatusBarItem, s: HarRecorderState): void {
  void vscode.commands.executeCommand('setContext', RECORDING_CONTEXT, s.recording);
  if (!s.recording) {
    item.hide();
    return;
  }
  item.text = `$(record) ${vscode.l10n.t('HAR {0}/{1}', s.recorded, s.count)}`;
  item.tooltip = s.includeBodies
    ? vscode.l10n.t(
        'Model Relay is recording the next {0} gateway requests with their bodies as an HTTP Archive ({1} so far). Click to stop and save.',
        s.count,
        s.recorded,
      )
    : vscode.l10n.t(
        'Model Relay is recording the next {0} gateway requests as an HTTP Archive, without bodies ({1} so far). Click to stop and save.',
        s.count,
        s.recorded,
      );
  item.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
  item.show();
}

async function start(recorder: HarRecorder): Promise<void> {
  if (recorder.state.recording) {
    const stopNow = vscode.l10n.t('Stop and Save');
    const pick = await vscode.window.showInformationMessage(
      vscode.l10n.t(
        'Model Relay is already recording an HTTP Archive ({0} of {1} requests).',
        recorder.state.recorded,
        recorder.state.count,
      ),
      stopNow,
    );
    if (pick === stopNow) await stop(recorder);
    return;
  }
  const text = await vscode.window.showInputBox({
    title: vscode.l10n.t('Record HTTP Archive'),
    prompt: vscode.l10n.t('How many of the next gateway requests to record (1 to {0})?', HAR_MAX_REQUESTS),
    value: '10',
    validateInput: (v) => {
      const r = parseHarCount(v);
      return 'problem' in r ? r.problem : undefined;
    },
  });
  const parsed = text === undefined ? undefined : parseHarCount(text);
  if (!parsed || 'problem' in parsed) return;
  const bodies: vscode.QuickPickItem = {
    label: vscode.l10n.t('Include request and response bodies'),
    detail: vscode.l10n.t(
      'Prompts, replies and files are left out unless you tick this. Tokens in them are masked either way.',
    ),
    picked: false,
  };
  const picked = await vscode.window.showQuickPick([bodies], {
    title: vscode.l10n.t('Record HTTP Archive'),
    placeHolder: vscode.l10n.t('Tick to include bodies, then press Enter to start recording'),
    canPickMany: true,
  });
  if (!picked) return;
  recorder.start({ count: parsed.count, includeBodies: picked.includes(bodies) });
  void vscode.window.showInformationMessage(
    vscode.l10n.t(
      'Model Relay: recording the next {0} gateway requests as an HTTP Archive. Click the status bar item to stop and save.',
      parsed.count,
    ),
  );
}

async function stop(recorder: HarRecorder): Promise<void> {
  const har = recorder.stop();
  if (!har) {
    void vscode.window.showInformationMessage(vscode.l10n.t('Model Relay is not recording an HTTP Archive.'));
    return;
  }
  await save(har);
}

function saveFailed(e: unknown): void {
  void vscode.window.showErrorMessage(
    vscode.l10n.t('Model Relay: the HTTP Archive could not be saved: {0}', e instanceof Error ? e.message : String(e)),
  );
}

/** The save dialog, then the file; an archive without entries is not offered. */
async function save(har: HarLog): Promise<void> {
  const n = har.log.entries.length;
  if (n === 0) {
    void vscode.window.showInformationMessage(
      vscode.l10n.t('Model Relay: no gateway request was made while recording, so there is no HTTP Archive to save.'),
    );
    return;
  }
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri ?? vscode.Uri.file(homedir());
  const target = await vscode.window.showSaveDialog({
    title: vscode.l10n.t('Save HTTP Archive'),
    saveLabel: vscode.l10n.t('Save HTTP Archive'),
    defaultUri: vscode.Uri.joinPath(folder, harFileName()),
    filters: { [vscode.l10n.t('HTTP Archive')]: ['har'] },
  });
  if (!target) {
    void vscode.window.showWarningMessage(
      vscode.l10n.t('Model Relay: the HTTP Archive of {0} requests was not saved.', n),
    );
    return;
  }
  await vscode.workspace.fs.writeFile(target, Buffer.from(`${JSON.stringify(har, null, 2)}\n`));
  void vscode.window.showInformationMessage(
    vscode.l10n.t(
      'Model Relay: saved the HTTP Archive of {0} requests to {1}. Tokens and cookies are masked; look it over before you share it.',
      n,
      vscode.workspace.asRelativePath(target),
    ),
  );
}
