/**
 * Add / Switch / Rename / Remove Gateway. The list lives in user settings (`modelRelay.gateways`,
 * edited by src/host/gateways/gatewayEdits.ts), the active one in the registry, each gateway's
 * tokens in its own store; Switch Gateway's rows are src/host/gateways/gatewayPick.ts.
 */
import * as vscode from 'vscode';
import { gatewayIdFor, suggestGatewayName, type GatewayProfile } from '../../gateway';
import { CommandId } from '../../host/commandIds';
import { DEFAULT_GATEWAY_ID } from '../../host/gateways/gatewayList';
import { hasEntry, withGatewayAdded, withGatewayRemoved, withGatewayRenamed } from '../../host/gateways/gatewayEdits';
import { gatewayPickRows, type GatewayAction, type GatewayPickRow } from '../../host/gateways/gatewayPick';
import type { KeptBaseUrl } from '../../host/gateways/baseUrlChoice';
import { quotaWords } from '../../host/status/statusRows';
import type { TokenSummary } from '../../host/gateways/tokenStore';
import { askBaseUrl } from './configureBaseUrl';
import type { GatewayService } from './gatewayService';
import { clearLegacyGateway, rawGateways, writeGateways } from './settings';
import { addToken } from './tokenCommands';
import type { TokenStore } from './tokenStore';

export interface GatewayCommandDeps {
  service: GatewayService;
  tokens: TokenStore;
  kept: KeptBaseUrl;
}

const validName = (v: string) =>
  v.trim() && v.trim().length <= 80 ? undefined : vscode.l10n.t('A name of 1 to 80 characters.');

/** Adds a gateway (from a link, `preset` holds what it carries), makes it active and asks for its token. */
export async function addGateway(
  { service, tokens, kept }: GatewayCommandDeps,
  preset?: Omit<GatewayProfile, 'id'>,
): Promise<void> {
  const chosen = await askBaseUrl(vscode.l10n.t('Model Relay: Add Gateway (1/3) — base URL'), '', preset?.baseUrl);
  if (!chosen) return;
  const name = await vscode.window.showInputBox({
    title: vscode.l10n.t('Model Relay: Add Gateway (2/3) — name'),
    prompt: vscode.l10n.t('The name shown in the status bar and the pickers.'),
    value: preset?.name ?? suggestGatewayName(chosen.base),
    ignoreFocusOut: true,
    validateInput: validName,
  });
  if (!name?.trim()) return;
  const listed = service.registry.gateways();
  // The first gateway takes the id `default`: a token stored before any gateway existed is its token.
  const id =
    listed.length === 0 ? DEFAULT_GATEWAY_ID : gatewayIdFor(name, [DEFAULT_GATEWAY_ID, ...listed.map((g) => g.id)]);
  const profile: GatewayProfile = { ...preset, id, name: name.trim(), baseUrl: chosen.base };
  if (chosen.kept) await kept.remember(chosen.base);
  await writeGateways(withGatewayAdded(rawGateways(), profile));
  service.reload();
  await service.registry.setActive(id);
  const store = service.registry.tokensOf(id);
  void vscode.window.showInformationMessage(
    vscode.l10n.t('Model Relay: gateway "{0}" added and active ({1}).', profile.name, chosen.base),
  );
  if (store.names().length === 0)
    await addToken(tokens, { gateway: profile, store, named: service.registry.gateways().length > 1 });
}

/** Each gateway's tokens and last-known balance, for the picker. */
async function pickFacts(service: GatewayService) {
  const tokens = new Map<string, TokenSummary[]>();
  const balance = new Map<string, string>();
  const warnBelow = service.current.quotaWarnBelow;
  for (const g of service.registry.gateways()) {
    const list = await service.registry.tokensOf(g.id).list();
    tokens.set(g.id, list);
    const masked = list.find((x) => x.active)?.masked;
    const short = quotaWords({ masked, quota: service.quotaOf(g.id), warnBelow, now: Date.now() })?.short;
    if (short) balance.set(g.id, short);
  }
  return { gateways: service.registry.gateways(), activeId: service.gateway?.id, tokens, balance };
}

type RowItem = vscode.QuickPickItem & { row: GatewayPickRow };

const actionCommand: Record<GatewayAction, CommandId> = {
  addGateway: CommandId.AddGateway,
  addToken: CommandId.AddToken,
  renameGateway: CommandId.RenameGateway,
  removeGateway: CommandId.RemoveGateway,
  copyLink: CommandId.CopyGatewayLink,
  more: CommandId.ShowActions,
};

/** The status bar's click: gateways with their tokens (one pick switches both), then the actions. */
export async function switchGateway({ service }: GatewayCommandDeps): Promise<void> {
  // Each gateway with its balance: the others' are read (cached, briefly waited for) with their own tokens.
  await service.readOtherBalances();
  const rows = gatewayPickRows(await pickFacts(service));
  const items: RowItem[] = rows.map((row) =>
    row.kind === 'separator'
      ? { row, label: row.label, kind: vscode.QuickPickItemKind.Separator }
      : {
          row,
          label: row.label,
          description: row.kind === 'action' ? undefined : row.description,
          detail: row.kind === 'gateway' ? row.detail : undefined,
        },
  );
  const pick = await vscode.window.showQuickPick(items, {
    title: vscode.l10n.t('Model Relay: Switch Gateway'),
    placeHolder: vscode.l10n.t('Choose the gateway (or one of its tokens) for the next requests'),
    matchOnDetail: true,
  });
  const row = pick?.row;
  if (!row || row.kind === 'separator') return;
  if (row.kind === 'action') {
    await vscode.commands.executeCommand(actionCommand[row.action]);
    return;
  }
  if (row.kind === 'token') await service.registry.tokensOf(row.gatewayId).setActive(row.tokenName);
  await service.registry.setActive(row.gatewayId);
  const g = service.registry.get(row.gatewayId);
  const token = service.registry.tokensOf(row.gatewayId).activeName();
  void vscode.window.setStatusBarMessage(
    token
      ? vscode.l10n.t('Model Relay: now using the gateway "{0}" with token "{1}".', g?.name ?? row.gatewayId, token)
      : vscode.l10n.t('Model Relay: now using the gateway "{0}" (no token yet).', g?.name ?? row.gatewayId),
    5000,
  );
}

/** Asks which gateway (the active one first); undefined when cancelled or there is none. */
export async function pickGateway(service: GatewayService, title: string): Promise<GatewayProfile | undefined> {
  const list = service.registry.gateways();
  if (list.length === 0) {
    void vscode.window.showInformationMessage(vscode.l10n.t('Model Relay: no gateway is configured yet.'));
    return undefined;
  }
  if (list.length === 1) return list[0];
  const active = service.gateway?.id;
  const ordered = [...list].sort((a, b) => Number(b.id === active) - Number(a.id === active));
  const pick = await vscode.window.showQuickPick(
    ordered.map((g) => ({
      label: g.name,
      description: g.id === active ? vscode.l10n.t('active') : undefined,
      detail: g.baseUrl,
      g,
    })),
    { title },
  );
  return pick?.g;
}

export async function renameGateway({ service }: GatewayCommandDeps): Promise<void> {
  const title = vscode.l10n.t('Model Relay: Rename Gateway');
  const g = await pickGateway(service, title);
  if (!g) return;
  const name = await vscode.window.showInputBox({
    title,
    value: g.name,
    ignoreFocusOut: true,
    validateInput: validName,
  });
  if (!name?.trim() || name.trim() === g.name) return;
  await writeGateways(withGatewayRenamed(rawGateways(), g, name.trim()));
  service.reload();
}

/** Removes a gateway from the settings and, after a confirmation, its tokens from secret storage. */
export async function removeGateway({ service }: GatewayCommandDeps): Promise<void> {
  const g = await pickGateway(service, vscode.l10n.t('Model Relay: Remove Gateway'));
  if (!g) return;
  const count = service.registry.tokensOf(g.id).names().length;
  const remove = vscode.l10n.t('Remove');
  const ok = await vscode.window.showWarningMessage(
    vscode.l10n.t('Remove the gateway "{0}" ({1}) and its {2} stored tokens?', g.name, g.baseUrl, count),
    {
      modal: true,
      detail: vscode.l10n.t("Its tokens are deleted from VS Code's secret storage; the gateway itself is not changed."),
    },
    remove,
  );
  if (ok !== remove) return;
  await service.registry.remove(g.id, async () => {
    const raw = rawGateways();
    if (hasEntry(raw, g.id)) await writeGateways(withGatewayRemoved(raw, g.id));
    if (g.id === DEFAULT_GATEWAY_ID && !hasEntry(raw, g.id)) await clearLegacyGateway();
    service.reload();
  });
  void vscode.window.showInformationMessage(vscode.l10n.t('Model Relay: gateway "{0}" removed.', g.name));
}
