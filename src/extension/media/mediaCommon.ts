/**
 * Shared bits of the image and video commands: output folders (and, once per git workspace, the offer
 * to add `.model-relay/` to .gitignore), saving images, model picking, prompts. Settings come from the
 * gateway service (`service.current`), like everywhere else.
 */
import * as vscode from 'vscode';
import { extensionForMime, mediaFileName, noImageError, type GeneratedImage } from '../../gateway';
import type { GatewayService } from '../gateways/gatewayService';
import { modelPickWords, type MediaCapability } from '../../host/media/mediaWords';
import { freeFileName, mediaFolder } from '../../host/media/outputFiles';
import { addToGitignore, GITIGNORE_LINE, isUnderMediaRoot, shouldOfferGitignore } from '../../host/media/gitignore';

/**
 * The folder results are saved to: the setting, inside the workspace folder (never outside it), else
 * inside the extension's storage.
 */
export async function outputFolder(
  context: vscode.ExtensionContext,
  service: GatewayService,
  kind: 'images' | 'videos',
): Promise<vscode.Uri> {
  const ws = vscode.workspace.workspaceFolders?.[0];
  const root = ws && ws.uri.scheme === 'file' ? ws.uri.fsPath : undefined;
  const r = mediaFolder(
    root,
    context.globalStorageUri.fsPath,
    service.current[kind].outputFolder,
    `modelRelay.${kind}.outputFolder`,
  );
  if ('error' in r) throw new Error(r.error);
  const dir = vscode.Uri.file(r.path);
  await vscode.workspace.fs.createDirectory(dir);
  if (root && isUnderMediaRoot(root, r.path)) void offerGitignoreOnce(context, root);
  return dir;
}

/** workspaceState: the .gitignore offer was made in this workspace (whatever the answer). */
const GITIGNORE_ASKED_KEY = 'modelRelay.gitignoreOffered';

/**
 * The first time media are written under `.model-relay/` in a git repository that does not ignore it:
 * offer, once per workspace, to add the line to .gitignore.
 */
async function offerGitignoreOnce(context: vscode.ExtensionContext, root: string): Promise<void> {
  if (context.workspaceState.get<boolean>(GITIGNORE_ASKED_KEY)) return;
  if (!(await shouldOfferGitignore(root).catch(() => false))) return;
  if (context.workspaceState.get<boolean>(GITIGNORE_ASKED_KEY)) return;
  await context.workspaceState.update(GITIGNORE_ASKED_KEY, true);
  const add = vscode.l10n.t('Add to .gitignore');
  const pick = await vscode.window.showInformationMessage(
    vscode.l10n.t(
      'Model Relay saves generated images and videos under {0} in this workspace. Add {0} to .gitignore so they are not committed?',
      GITIGNORE_LINE,
    ),
    add,
    vscode.l10n.t('Not now'),
  );
  if (pick !== add) return;
  try {
    await addToGitignore(root);
  } catch (e) {
    void vscode.window.showErrorMessage(
      vscode.l10n.t('Model Relay could not update .gitignore: {0}', e instanceof Error ? e.message : String(e)),
    );
  }
}

/** A file in `dir` named `name`, or numbered (`-2`, `-3`…) when that exists: saved media never overwrite. */
export async function freeFile(dir: vscode.Uri, name: string): Promise<vscode.Uri> {
  const taken = async (n: string) => {
    try {
      await vscode.workspace.fs.stat(vscode.Uri.joinPath(dir, n));
      return true;
    } catch {
      return false;
    }
  };
  return vscode.Uri.joinPath(dir, await freeFileName(name, taken));
}

/** The configured model for a capability, or a pick among the visible models that have it. */
export async function pickModel(
  service: GatewayService,
  cap: MediaCapability,
  configured: string,
  title: string,
): Promise<string | undefined> {
  if (configured) return configured;
  let ids: string[] = [];
  try {
    // The service reads the prices together with the list.
    const models = await service.refreshModels();
    ids = models.filter((m) => !m.capabilities || m.capabilities.includes(cap)).map((m) => m.id);
  } catch {
    /* fall through to typing the id */
  }
  const words = modelPickWords(cap);
  if (ids.length) {
    const items = ids.map((id) => ({ label: id, description: service.price(id).text }));
    return (
      await vscode.window.showQuickPick(items, {
        title,
        placeHolder: words.pick,
        matchOnDescription: true,
      })
    )?.label;
  }
  return vscode.window.showInputBox({ title, prompt: words.typeId, ignoreFocusOut: true });
}

/** The model's published price ("$0.04 per call"), where the gateway publishes prices. */
export async function priceOf(service: GatewayService, model: string): Promise<string | undefined> {
  await service.refreshPricing();
  return service.price(model).text;
}

/** The editor selection as a prompt, else an input box. */
export async function promptFromSelectionOrInput(title: string, placeHolder: string): Promise<string | undefined> {
  const editor = vscode.window.activeTextEditor;
  const selected = editor && !editor.selection.isEmpty ? editor.document.getText(editor.selection).trim() : '';
  if (selected) return selected;
  const typed = await vscode.window.showInputBox({
    title,
    prompt: placeHolder,
    ignoreFocusOut: true,
    validateInput: (v) => (v.trim() ? undefined : vscode.l10n.t('The prompt is empty.')),
  });
  return typed?.trim() || undefined;
}

/** Saves one generated image in the images folder, named from `nameSeed` (the prompt); returns the file. */
export async function saveGeneratedImage(
  context: vscode.ExtensionContext,
  service: GatewayService,
  img: GeneratedImage,
  nameSeed: string,
  when?: Date,
): Promise<vscode.Uri> {
  const dir = await outputFolder(context, service, 'images');
  const file = await freeFile(dir, mediaFileName(nameSeed, extensionForMime(img.mime), when));
  await vscode.workspace.fs.writeFile(file, img.bytes);
  return file;
}

/** Generates one image from a prompt and saves it (the chat's and @relay's `/image`, the agent's image tool). */
export async function generateAndSaveImage(
  context: vscode.ExtensionContext,
  service: GatewayService,
  model: string,
  prompt: string,
  signal: AbortSignal,
  size?: string,
): Promise<{ file: vscode.Uri; image: GeneratedImage }> {
  const r = await service.client.generateImage({ model, prompt, signal, ...(size ? { size } : {}) });
  const image = r.images[0];
  if (!image) throw noImageError();
  return { file: await saveGeneratedImage(context, service, image, prompt), image };
}
