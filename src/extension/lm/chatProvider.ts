/**
 * Gateway models in VS Code's own chat and agent mode: a LanguageModelChatProvider answering
 * through the core on each model's surface, with tools, images and reasoning. The conversions are
 * plain Node in src/host/lm; this file is the glue. Where the running VS Code lacks the API,
 * nothing is registered and the log says so once.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { abortOn, withAbort } from '../../host/cancellation';
import { errorSentence } from '../../host/errorWords';
import { lmErrorCode } from '../../host/lm/lmErrors';
import { LmModelList, type LmListSource } from '../../host/lm/lmModels';
import { lmToChatRequest } from '../../host/lm/lmRequest';
import { modelProfile, type ModelProfile } from '../../host/lm/modelProfile';
import { ThinkingCache } from '../../host/lm/thinkingCache';
import { TokenCounter, type CountTokens } from '../../host/lm/tokenCounter';
import { GatewayError, type ChatEvent, type ModelInfo } from '../../gateway';
import type { GatewayService } from '../gateways/gatewayService';
import type { TokenStore } from '../gateways/tokenStore';
import type { Registrar } from '../lazy/registrar';
import { countableText, thinkingPart, toLmMessages } from './lmParts';

export { LM_VENDOR as VENDOR } from '../../host/commandIds';
/** What an image costs a prompt, roughly (a 512 px tile and its overhead). */
const IMAGE_TOKENS = 800;

interface RelayModelInfo extends vscode.LanguageModelChatInformation {
  profile: ModelProfile;
  /** Proposed in 1.120, harmless before: keeps third-party models in the picker (vscode#316687). */
  isUserSelectable: boolean;
}

/** The bundled tokenizer next to the extension bundle (dist/tokenizer.js), loaded on first use. */
function loadTokenizer(): CountTokens {
  const file = path.join(__dirname, 'tokenizer.js');
  // A runtime path: the bundler must not pull the 2.4 MB tokenizer into the activation bundle.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a runtime path, loaded on first count
  return (require(/* webpackIgnore: true */ file) as { countTokens: CountTokens }).countTokens;
}

function describe(m: ModelInfo, p: ModelProfile): string {
  const can = [
    p.toolCalling ? vscode.l10n.t('tools') : '',
    p.imageInput ? vscode.l10n.t('images') : '',
    p.thinkingBudget ? vscode.l10n.t('thinking') : '',
  ]
    .filter(Boolean)
    .join(', ');
  return [
    vscode.l10n.t("{0} through the gateway's {1} surface", m.id, p.surface),
    can,
    vscode.l10n.t('{0}k context', Math.round(p.maxInputTokens / 1000)),
  ]
    .filter(Boolean)
    .join(' · ');
}

/** The settings a model's profile is made from. */
function profileSettings(service: GatewayService) {
  const s = service.current;
  return {
    defaultSurface: s.defaultSurface,
    nativeModel: s.models.native,
    maxTokens: s.maxTokens,
    overrides: s.modelOverrides,
  };
}

/** What the cached model list hangs on: the gateway for the list; the profile settings and prices for its look. */
function listSource(service: GatewayService, tokens: TokenStore): LmListSource {
  return {
    refreshModels: (signal) => service.refreshModels(signal),
    listKey: () => JSON.stringify([service.client.endpoints().base, service.current.backupUrls, tokens.activeName()]),
    lookKey: (models) =>
      JSON.stringify([
        profileSettings(service),
        models.map((m) => [service.price(m.id).text, service.price(m.id).groups]),
      ]),
  };
}

/** The gateway error as VS Code's LanguageModelError where a kind fits, keeping the sentence and the error as cause. */
function lmError(e: GatewayError): Error {
  const sentence = errorSentence(e);
  const code = lmErrorCode(e);
  const error = code ? vscode.LanguageModelError[code](sentence) : new Error(sentence);
  error.cause = e;
  return error;
}

class RelayChatProvider implements vscode.LanguageModelChatProvider<RelayModelInfo> {
  readonly emitter = new vscode.EventEmitter<void>();
  readonly onDidChangeLanguageModelChatInformation = this.emitter.event;
  /** /v1/models read once and kept until the gateway or token changes */
  readonly models: LmModelList;
  private readonly thinking = new ThinkingCache();
  private readonly tokens = new TokenCounter(loadTokenizer);
  constructor(
    private readonly service: GatewayService,
    tokens: TokenStore,
  ) {
    this.models = new LmModelList(listSource(service, tokens), () => this.emitter.fire());
  }

  async provideLanguageModelChatInformation(
    _o: vscode.PrepareLanguageModelChatModelOptions,
    token: vscode.CancellationToken,
  ): Promise<RelayModelInfo[]> {
    if (!this.service.client.endpoints().base) return [];
    const models = await withAbort(token, (signal) => this.models.list(signal));
    const settings = profileSettings(this.service);
    return models
      .filter((m) => !m.capabilities || m.capabilities.includes('chat') || m.capabilities.includes('native'))
      .map((m) => this.info(m, modelProfile(m, settings)));
  }

  private info(m: ModelInfo, profile: ModelProfile): RelayModelInfo {
    const price = this.service.price(m.id);
    return {
      id: m.id,
      name: m.id,
      family: m.id,
      version: '1',
      detail: [`Model Relay · ${profile.surface}`, price.text].filter(Boolean).join(' · '),
      tooltip: [describe(m, profile), price.groups.length ? vscode.l10n.t('groups: {0}', price.groups.join(', ')) : '']
        .filter(Boolean)
        .join(' · '),
      maxInputTokens: profile.maxInputTokens,
      maxOutputTokens: profile.maxOutputTokens,
      // Agent mode lists only models with tool calling; `capabilities` must always be an object.
      capabilities: { toolCalling: profile.toolCalling, imageInput: profile.imageInput },
      isUserSelectable: true,
      profile,
    };
  }

  async provideLanguageModelChatResponse(
    model: RelayModelInfo,
    messages: readonly vscode.LanguageModelChatRequestMessage[],
    options: vscode.ProvideLanguageModelChatResponseOptions,
    progress: vscode.Progress<vscode.LanguageModelResponsePart>,
    token: vscode.CancellationToken,
  ): Promise<void> {
    const cancel = abortOn(token);
    // options.modelOptions is never forwarded: Copilot puts its telemetry keys there.
    const req = {
      ...lmToChatRequest(
        model.id,
        model.profile,
        toLmMessages(messages),
        { tools: options.tools, toolMode: options.toolMode },
        this.thinking,
      ),
      signal: cancel.signal,
    };
    try {
      for await (const e of this.service.client.chatStream(req)) this.report(e, progress);
    } catch (e) {
      if (e instanceof GatewayError && e.kind !== 'aborted') throw lmError(e);
      throw e;
    } finally {
      cancel.dispose();
    }
  }

  private report(e: ChatEvent, progress: vscode.Progress<vscode.LanguageModelResponsePart>): void {
    switch (e.type) {
      case 'text':
        progress.report(new vscode.LanguageModelTextPart(e.text));
        break;
      case 'tool_call':
        progress.report(new vscode.LanguageModelToolCallPart(e.call.id, e.call.name, e.call.input));
        break;
      case 'reasoning': {
        const part = thinkingPart(e.text);
        if (part) progress.report(part);
        break;
      }
      case 'done':
        // Signed thinking goes back with the tool results of these calls (the stable API cannot carry it).
        this.thinking.remember(
          e.result.toolCalls.map((c) => c.id),
          e.result.thinking,
        );
        break;
      default:
        break;
    }
  }

  provideTokenCount(_m: RelayModelInfo, text: string | vscode.LanguageModelChatRequestMessage): Promise<number> {
    if (typeof text === 'string') return Promise.resolve(this.tokens.count(text));
    const { text: t, images } = countableText(text);
    return Promise.resolve(this.tokens.count(t) + images * IMAGE_TOKENS);
  }
}

export function registerLanguageModels(
  context: vscode.ExtensionContext,
  hub: Registrar,
  service: GatewayService,
  tokens: TokenStore,
  log: vscode.LogOutputChannel,
): void {
  const lm = (vscode as { lm?: { registerLanguageModelChatProvider?: unknown } }).lm;
  if (typeof lm?.registerLanguageModelChatProvider !== 'function') {
    log.info(
      vscode.l10n.t(
        "VS Code {0} has no language model chat provider API; gateway models are not offered in VS Code's chat.",
        vscode.version,
      ),
    );
    return;
  }
  const provider = new RelayChatProvider(service, tokens);
  context.subscriptions.push(
    provider.emitter,
    hub.languageModels(provider),
    // The service announces a token switch too; the list's key holds the active token's name.
    service.onDidChange(() => provider.models.serviceChanged()),
  );
}
