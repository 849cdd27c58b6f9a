/**
 * The Status view's gateway actions: "Switch to This Gateway" (a gateway node's inline and context
 * action) and a click on a token of a gateway (that token becomes the gateway's active one and the
 * gateway the active gateway, as one pick in Switch Gateway does; while no gateway is configured, a
 * click on another of the tokens stored before the base URL makes it the active one).
 */
import * as vscode from 'vscode';
import type { GatewayService } from '../gateways/gatewayService';

/** The gateway id from the command's argument: a gateway node of the view, or the id itself. */
function gatewayIdOf(arg: unknown): string | undefined {
  if (typeof arg === 'string') return arg;
  const id = arg && typeof arg === 'object' ? (arg as { gatewayId?: unknown }).gatewayId : undefined;
  return typeof id === 'string' ? id : undefined;
}

function tellSwitched(service: GatewayService, id: string): void {
  const name = service.registry.get(id)?.name ?? id;
  const token = service.registry.tokensOf(id).activeName();
  void vscode.window.setStatusBarMessage(
    token
      ? vscode.l10n.t('Model Relay: now using the gateway "{0}" with token "{1}".', name, token)
      : vscode.l10n.t('Model Relay: now using the gateway "{0}" (no token yet).', name),
    5000,
  );
}

export async function switchToGateway(service: GatewayService, arg: unknown): Promise<void> {
  const id = gatewayIdOf(arg);
  if (!id || !service.registry.get(id)) return;
  await service.registry.setActive(id);
  tellSwitched(service, id);
}

export async function useGatewayToken(service: GatewayService, gatewayId: unknown, tokenName: unknown): Promise<void> {
  if (typeof gatewayId !== 'string' || typeof tokenName !== 'string') return;
  const known = !!service.registry.get(gatewayId);
  // No gateway configured yet: the tokens stored before the base URL (the Status view's tree of one).
  if (!known && gatewayId !== service.registry.activeId()) return;
  const store = service.registry.tokensOf(gatewayId);
  if (!known) {
    await store.setActive(tokenName);
    const masked = (await store.list()).find((x) => x.name === tokenName)?.masked ?? '';
    void vscode.window.setStatusBarMessage(
      vscode.l10n.t('Model Relay: now using token "{0}" ({1}).', tokenName, masked),
      5000,
    );
    return;
  }
  await store.setActive(tokenName);
  await service.registry.setActive(gatewayId);
  tellSwitched(service, gatewayId);
}
