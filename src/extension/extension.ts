/**
 * Activation: light on purpose (its bundle, dist/extension.js, holds no core, undici or zod — loading
 * those at activation measured far over the no-op extension's time, see CONTRIBUTING's Benchmarks).
 * It registers a stand-in for every command, view, language-model vendor, participant and tool that
 * package.json contributes (./lazy/hub.ts, generated from `contributes`) and loads the rest
 * (./main.ts, bundled as dist/main.js) on first use — a command, a view's content, VS Code asking
 * for models — or a few seconds after start, for the status bar's token and balance.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { CommandId, WALKTHROUGH_ID } from '../host/commandIds';
import { Hub } from './lazy/hub';
import type { RelayApi } from './main';

/** After this long the rest loads anyway (the status bar's token and balance need it). */
const BACKGROUND_LOAD_MS = 2_500;

export interface LazyRelayApi {
  /** the extension's objects, once its main part has loaded (loads it; rejects if it cannot) */
  ready(): Promise<RelayApi>;
}

export function activate(context: vscode.ExtensionContext): LazyRelayApi {
  let loading: Promise<RelayApi> | undefined;
  // A failed load is shown once per attempt and not kept: what it registered is disposed again and
  // the next use tries anew.
  const ready = (): Promise<RelayApi> => {
    const before = context.subscriptions.length;
    return (loading ??= Promise.resolve()
      .then(() => {
        // A runtime path: the bundler must not pull the rest into the activation bundle (hence no import).
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        const main = require(/* webpackIgnore: true */ path.join(__dirname, 'main.js')) as typeof import('./main');
        return main.start(context, hub);
      })
      .catch((e: unknown) => {
        loading = undefined;
        for (const d of context.subscriptions.splice(before).reverse()) d.dispose();
        void vscode.window.showErrorMessage(
          vscode.l10n.t('Model Relay could not load: {0}', e instanceof Error ? e.message : String(e)),
        );
        throw e;
      }));
  };
  const hub: Hub = new Hub(context, () =>
    ready().then(
      () => true,
      () => false,
    ),
  );
  hub.registerAll();
  // "Get Started" needs nothing of the rest: the walkthrough is contributed in package.json.
  context.subscriptions.push(
    hub.command(CommandId.GetStarted, () =>
      vscode.commands.executeCommand(
        'workbench.action.openWalkthrough',
        `${context.extension.id}#${WALKTHROUGH_ID}`,
        false,
      ),
    ),
  );
  // A gateway link (`vscode://<publisher>.<name>/addGateway?…`, activation event onUri) is read by the main part.
  context.subscriptions.push(
    vscode.window.registerUriHandler({
      // a failed load was shown by `ready`; the main part shows what goes wrong with the link itself
      handleUri: (uri) =>
        void ready().then(
          (api) => api.handleUri(uri),
          () => undefined,
        ),
    }),
  );
  const timer = setTimeout(() => void ready().catch(() => undefined), BACKGROUND_LOAD_MS);
  context.subscriptions.push({ dispose: () => clearTimeout(timer) });
  return { ready };
}

export function deactivate(): void {}
