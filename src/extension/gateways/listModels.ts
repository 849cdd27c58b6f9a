/** "Model Relay: List Models": the models visible to the active token, grouped by capability. */
import * as vscode from 'vscode';
import type { Capability, ModelInfo } from '../../gateway';
import { showGatewayError } from '../errorPresenter';
import type { GatewayService } from './gatewayService';

/** The capability's name in the list (in the display language: made when needed). */
function label(c: Capability | 'unknown'): string {
  switch (c) {
    case 'chat':
      return vscode.l10n.t('Chat');
    case 'native':
      return vscode.l10n.t('Native messages');
    case 'image':
      return vscode.l10n.t('Image');
    case 'image-edit':
      return vscode.l10n.t('Image edit');
    case 'video':
      return vscode.l10n.t('Video');
    default:
      return vscode.l10n.t('Capability not reported');
  }
}

export function groupModels(models: ModelInfo[]): Array<{ group: string; models: ModelInfo[] }> {
  const groups = new Map<string, ModelInfo[]>();
  for (const m of models) {
    const caps = m.capabilities?.length ? m.capabilities : (['unknown'] as const);
    const key = label(caps[0]);
    groups.set(key, [...(groups.get(key) ?? []), m]);
  }
  return [...groups.entries()].map(([group, ms]) => ({ group, models: ms.sort((a, b) => a.id.localeCompare(b.id)) }));
}

export async function listModels(service: GatewayService): Promise<void> {
  let models: ModelInfo[];
  try {
    models = await vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Window,
        title: vscode.l10n.t('Model Relay: listing models…'),
        cancellable: false,
      },
      () => service.refreshModels(),
    );
  } catch (e) {
    await showGatewayError(vscode.l10n.t('Listing models'), e);
    return;
  }
  if (models.length === 0) {
    void vscode.window.showWarningMessage(
      vscode.l10n.t(
        "Model Relay: this token's group sees no models. Use a token from another group, or ask the gateway operator.",
      ),
    );
    return;
  }
  await service.refreshPricing();
  const items: Array<vscode.QuickPickItem & { id?: string }> = [];
  for (const g of groupModels(models)) {
    items.push({ label: g.group, kind: vscode.QuickPickItemKind.Separator });
    for (const m of g.models) {
      const { text: price, groups } = service.price(m.id);
      const caps = m.capabilities?.map(label).join(', ') ?? m.ownedBy;
      items.push({
        label: m.id,
        description: [caps, price].filter(Boolean).join(' · '),
        ...(groups.length ? { detail: vscode.l10n.t('groups: {0}', groups.join(', ')) } : {}),
        id: m.id,
      });
    }
  }
  const pick = await vscode.window.showQuickPick(items, {
    title: vscode.l10n.t('Model Relay: {0} models visible to this token', models.length),
    placeHolder: vscode.l10n.t(
      'Pick a model id to copy it. Listing a model does not prove generation works: only a real call does.',
    ),
    matchOnDescription: true,
  });
  if (pick?.id) {
    await vscode.env.clipboard.writeText(pick.id);
    void vscode.window.showInformationMessage(
      vscode.l10n.t(
        'Model Relay: copied "{0}". Note: a listed model is visible, which does not prove generation works — a real call confirms it.',
        pick.id,
      ),
    );
  }
}
