/**
 * Gateway models in VS Code's own chat: a LanguageModelChatProvider answering through the core,
 * streaming, on the surface configured for each model; plus the `@relay` chat participant.
 * Where the running VS Code lacks these APIs, nothing is registered and the log says so once.
 */
import * as vscode from 'vscode';
import { errorSentence } from '../../host/errorPresenter';
import { GatewayError, estimateTokens, transcriptToRequest, type ModelInfo, type Surface, type TranscriptMessage } from '../../gateway';
import type { GatewayService } from '../gatewayService';
import type { TokenStore } from '../tokenStore';

export const VENDOR = 'model-relay';

interface RelayModelInfo extends vscode.LanguageModelChatInformation {
  surface: Surface;
}

/** Which surface answers a model: native for native-only models or the configured native model. */
export function surfaceForModel(m: ModelInfo, configuredNative: string): Surface {
  if (m.id === configuredNative) return 'native';
  if (m.capabilities?.includes('native') && !m.capabilities.includes('chat')) return 'native';
  return 'compatible';
}

function roleOf(r: vscode.LanguageModelChatMessageRole): TranscriptMessage['role'] {
  return r === vscode.LanguageModelChatMessageRole.Assistant ? 'assistant' : r === vscode.LanguageModelChatMessageRole.User ? 'user' : 'system';
}

export function textOf(m: vscode.LanguageModelChatRequestMessage): string {
  return m.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
}

class RelayChatProvider implements vscode.LanguageModelChatProvider<RelayModelInfo> {
  private readonly emitter = new vscode.EventEmitter<void>();
  readonly onDidChangeLanguageModelChatInformation = this.emitter.event;
  constructor(private readonly service: GatewayService) {}

  refresh(): void {
    this.emitter.fire();
  }

  async provideLanguageModelChatInformation(_o: vscode.PrepareLanguageModelChatModelOptions, token: vscode.CancellationToken): Promise<RelayModelInfo[]> {
    if (!this.service.client.endpoints().base) return [];
    const ac = new AbortController();
    token.onCancellationRequested(() => ac.abort());
    let models: ModelInfo[];
    try {
      models = await this.service.refreshModels(ac.signal);
    } catch {
      return [];
    }
    const s = this.service.current;
    return models
      .filter((m) => !m.capabilities || m.capabilities.includes('chat') || m.capabilities.includes('native'))
      .map((m) => {
        const surface = surfaceForModel(m, s.models.native);
        return {
          id: m.id,
          name: m.id,
          family: m.id,
          version: '1',
          detail: `Model Relay · ${surface}`,
          tooltip: `${m.id} through the gateway's ${surface} surface`,
          maxInputTokens: 128_000,
          maxOutputTokens: s.maxTokens,
          capabilities: {},
          surface,
        };
      });
  }

  async provideLanguageModelChatResponse(model: RelayModelInfo, messages: readonly vscode.LanguageModelChatRequestMessage[], _o: vscode.ProvideLanguageModelChatResponseOptions, progress: vscode.Progress<vscode.LanguageModelResponsePart>, token: vscode.CancellationToken): Promise<void> {
    const ac = new AbortController();
    token.onCancellationRequested(() => ac.abort());
    const req = transcriptToRequest(
      messages.map((m) => ({ role: roleOf(m.role), text: textOf(m) })),
      model.surface,
      model.id,
      { maxTokens: this.service.current.maxTokens, signal: ac.signal },
    );
    try {
      for await (const e of this.service.client.chatStream(req)) {
        if (e.type === 'text') progress.report(new vscode.LanguageModelTextPart(e.text));
      }
    } catch (e) {
      if (e instanceof GatewayError && e.kind !== 'aborted') throw new Error(errorSentence(e));
      throw e;
    }
  }

  async provideTokenCount(_m: RelayModelInfo, text: string | vscode.LanguageModelChatRequestMessage): Promise<number> {
    return estimateTokens(typeof text === 'string' ? text : textOf(text));
  }
}

export function registerLanguageModels(context: vscode.ExtensionContext, service: GatewayService, tokens: TokenStore, log: vscode.LogOutputChannel): void {
  const lm = (vscode as { lm?: { registerLanguageModelChatProvider?: unknown } }).lm;
  if (typeof lm?.registerLanguageModelChatProvider !== 'function') {
    log.info(`VS Code ${vscode.version} has no language model chat provider API; gateway models are not offered in VS Code's chat.`);
    return;
  }
  const provider = new RelayChatProvider(service);
  context.subscriptions.push(vscode.lm.registerLanguageModelChatProvider(VENDOR, provider), tokens.onDidChange(() => provider.refresh()));
  let lastBase = service.client.endpoints().base;
  context.subscriptions.push(
    service.onDidChange(() => {
      const base = service.client.endpoints().base;
      if (base !== lastBase) {
        lastBase = base;
        provider.refresh();
      }
    }),
  );
}

/**
 * "Model Relay: Check Gateway Models in VS Code Chat": asks VS Code's language model API for the
 * models this extension provides and sends one short prompt through it, proving the path the
 * built-in chat uses (vscode.lm → our provider → the core → the gateway).
 */
export async function checkLanguageModels(preset?: { model?: string }): Promise<string | undefined> {
  if (typeof (vscode as { lm?: { selectChatModels?: unknown } }).lm?.selectChatModels !== 'function') {
    void vscode.window.showWarningMessage(`Model Relay: VS Code ${vscode.version} has no language model API.`);
    return undefined;
  }
  const models = await vscode.lm.selectChatModels({ vendor: VENDOR });
  if (!models.length) {
    void vscode.window.showWarningMessage("Model Relay: VS Code's chat sees no gateway models yet: set the base URL and a token, then try again.");
    return undefined;
  }
  const id = preset?.model ?? (await vscode.window.showQuickPick(models.map((m) => ({ label: m.id, description: m.family === m.id ? undefined : m.family })), { title: `Model Relay: ${models.length} gateway models in VS Code's chat — pick one to test` }))?.label;
  const model = models.find((m) => m.id === id);
  if (!model) return undefined;
  const cts = new vscode.CancellationTokenSource();
  try {
    const res = await model.sendRequest([vscode.LanguageModelChatMessage.User('Reply with a short greeting.')], {}, cts.token);
    let text = '';
    for await (const part of res.text) text += part;
    void vscode.window.showInformationMessage(`Model Relay: ${model.id} answered through VS Code's language model API: "${text.slice(0, 200)}"`);
    return text;
  } catch (e) {
    void vscode.window.showErrorMessage(`Model Relay: ${model.id} failed through VS Code's language model API: ${e instanceof Error ? e.message : String(e)}`);
    return undefined;
  } finally {
    cts.dispose();
  }
}
