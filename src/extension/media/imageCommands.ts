/** "Generate Image from Selection" and "Edit Image": progress with Cancel, save, preview. */
import * as vscode from 'vscode';
import { basename } from 'node:path';
import { SIZE_PATTERN, editUploadLimit, type ImageResult } from '../../gateway';
import { showGatewayError } from '../errorPresenter';
import type { GatewayService } from '../gateways/gatewayService';
import { withAbort } from '../../host/cancellation';
import { sizePrompt } from '../../host/media/mediaWords';
import { showImagePreview } from './imagePreview';
import { pickModel, priceOf, promptFromSelectionOrInput, saveGeneratedImage } from './mediaCommon';

async function saveResults(
  context: vscode.ExtensionContext,
  service: GatewayService,
  result: ImageResult,
  prompt: string,
  suffix = '',
): Promise<vscode.Uri[]> {
  const now = new Date();
  const many = result.images.length > 1;
  const out: vscode.Uri[] = [];
  for (const [i, img] of result.images.entries())
    out.push(await saveGeneratedImage(context, service, img, `${prompt}${suffix}${many ? `-${i + 1}` : ''}`, now));
  return out;
}

export async function generateImageFromSelection(
  context: vscode.ExtensionContext,
  service: GatewayService,
): Promise<vscode.Uri | undefined> {
  const prompt = await promptFromSelectionOrInput(
    vscode.l10n.t('Model Relay: Generate Image'),
    vscode.l10n.t('Describe the image'),
  );
  if (!prompt) return undefined;
  const model = await pickModel(
    service,
    'image',
    service.current.models.image,
    vscode.l10n.t('Model Relay: image model'),
  );
  if (!model) return undefined;
  const price = await priceOf(service, model);
  const size = await vscode.window.showInputBox({
    title: vscode.l10n.t('Model Relay: image size — Enter generates the image'),
    prompt: sizePrompt(model, price),
    value: service.current.images.defaultSize,
    ignoreFocusOut: true,
    validateInput: (v) =>
      !v.trim() || SIZE_PATTERN.test(v.trim()) ? undefined : vscode.l10n.t('Use <width>x<height>, e.g. 1024x1024.'),
  });
  if (size === undefined) return undefined;
  try {
    const result = await vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title: vscode.l10n.t('Model Relay: generating an image with {0}…', model),
        cancellable: true,
      },
      (_p, token) =>
        withAbort(token, (signal) =>
          service.client.generateImage({ model, prompt, size: size.trim() || undefined, signal }),
        ),
    );
    const [file] = await saveResults(context, service, result, prompt);
    if (!file) return undefined;
    showImagePreview(context, { file, prompt, model, size: size.trim() || undefined });
    return file;
  } catch (e) {
    await showGatewayError(vscode.l10n.t('Image generation'), e, service);
    return undefined;
  }
}

/** The upload limit for an edit with `model`, or undefined (and why, shown) when `source` is above it. */
async function uploadLimit(service: GatewayService, model: string, source: vscode.Uri): Promise<number | undefined> {
  const limit = editUploadLimit(model, service.current.imagesMaxUploadBytes);
  const maxBytes = limit.bytes;
  const stat = await vscode.workspace.fs.stat(source);
  if (stat.size <= maxBytes) return maxBytes;
  void vscode.window.showErrorMessage(
    vscode.l10n.t(
      'Model Relay: {0} is {1} MiB, above the {2} MiB limit ({3}). The gateway would answer 413: reduce the image or file size.',
      basename(source.fsPath),
      (stat.size / 1048576).toFixed(1),
      (maxBytes / 1048576).toFixed(1),
      limit.note ?? 'modelRelay.images.maxUploadBytes',
    ),
  );
  return undefined;
}

export async function editImage(
  context: vscode.ExtensionContext,
  service: GatewayService,
  target?: vscode.Uri,
): Promise<vscode.Uri | undefined> {
  let source = target instanceof vscode.Uri ? target : undefined;
  if (!source) {
    const picked = await vscode.window.showOpenDialog({
      title: vscode.l10n.t('Model Relay: image to edit'),
      canSelectMany: false,
      filters: { [vscode.l10n.t('Images')]: ['png', 'jpg', 'jpeg', 'webp'] },
    });
    source = picked?.[0];
  }
  if (!source) return undefined;
  if (!/\.(png|jpe?g|webp)$/i.test(source.fsPath)) {
    void vscode.window.showErrorMessage(vscode.l10n.t('Model Relay: only png, jpg and webp images can be edited.'));
    return undefined;
  }
  const model = await pickModel(
    service,
    'image-edit',
    service.current.models.imageEdit,
    vscode.l10n.t('Model Relay: image edit model'),
  );
  if (!model) return undefined;
  const maxBytes = await uploadLimit(service, model, source);
  if (maxBytes === undefined) return undefined;
  const prompt = await vscode.window.showInputBox({
    title: vscode.l10n.t('Model Relay: Edit {0}', basename(source.fsPath)),
    prompt: vscode.l10n.t('What should change?'),
    ignoreFocusOut: true,
    validateInput: (v) => (v.trim() ? undefined : vscode.l10n.t('The instruction is empty.')),
  });
  if (!prompt?.trim()) return undefined;
  try {
    const result = await vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title: vscode.l10n.t('Model Relay: editing {0} with {1}…', basename(source.fsPath), model),
        cancellable: true,
      },
      (_p, token) =>
        withAbort(token, (signal) =>
          service.client.editImage({
            model,
            prompt: prompt.trim(),
            imagePath: source.fsPath,
            maxFileBytes: maxBytes,
            signal,
          }),
        ),
    );
    const [file] = await saveResults(context, service, result, prompt.trim(), '-edit');
    if (!file) return undefined;
    showImagePreview(context, {
      file,
      prompt: prompt.trim(),
      model,
      original: source,
      title: vscode.l10n.t('Edited: {0}', basename(source.fsPath)),
    });
    return file;
  } catch (e) {
    await showGatewayError(vscode.l10n.t('Image edit'), e, service);
    return undefined;
  }
}
