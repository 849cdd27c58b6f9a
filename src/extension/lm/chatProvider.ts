/**
 * Gateway models in VS Code's own chat and agent mode: a LanguageModelChatProvider answering
 * through the core on each model's surface, with tools, images and reasoning. The conversions are
 * plain Node in src/host/lm; this file is the glue. Where the running VS Code lacks the API,
 * nothing is registered and the log says so once.
 */
import * as vscode from 'vscode';
import { abortOn, withAbort } from '../../host/cancellation';
import { billedWarning, errorSentence } from '../../host/errorWords';
import { lmErrorCode } from '../../host/lm/lmErrors';
import { lmModelId, lmRoutes, type ToolCallOrigins } from '../../host/lm/lmGateways';
import { withNotices } from '../../host/lm/lmNotices';
import { LmModelLists, type LmListSource } from '../../host/lm/lmModels';
import { lmToChatRequest } from '../../host/lm/lmRequest';
import { modelProfile, surfaceWords, type ModelProfile } from '../../host/lm/modelProfile';
import { pickerFields, type PickerFields } from '../../host/lm/pickerInfo';
import { ThinkingCache } from '../../host/lm/thinkingCache';
import type { TokenCounter } from '../../host/lm/tokenCounter';
import {
  GatewayError,
  LIST_ACROSS_BOUND_MS,
  canChat,
  chatStreamAcross,
  type ChatEvent,
  type GatewayProfile,
  type ModelInfo,
  type Route,
} from '../../gateway';
import type { GatewayService } from '../gateways/gatewayService';
import type { Registrar } from '../lazy/registrar';
import { thinkingPart, toLmMessages, toLmPart } from './lmParts';

export { LM_VENDOR as VENDOR } from '../../host/commandIds';

interface RelayModelInfo extends vscode.LanguageModelChatInformation {
  profile: ModelProfile;
  /** the gateway and model id there (VS Code hands this object back with each request) */
  route?: Route;
  /** Proposed (chatProvider): the picker's group — a string, the gateway's name, only with several gateways (pickerFields). */
  category?: string;
  /** Proposed in 1.120, harmless before: keeps third-party models in the picker (vscode#316687). */
  isUserSelectable: boolean;
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
    vscode.l10n.t("{0} through the gateway's {1} surface", m.id, surfaceWords(p)),
    can,
    vscode.l10n.t('{0}k context', Math.round(p.maxInputTokens / 1000)),
  ]
    .filter(Boolean)
    .join(' · ');
}

/** The settings a model's profile is made from: its gateway's (default surface, native model) and the shared ones. */
function profileSettings(service: GatewayService, gatewayId: string) {
  const s = service.settingsOf(gatewayId);
  return {
    defaultSurface: s.defaultSurface,
    nativeModel: s.models.native,
    maxTokens: s.maxTokens,
    overrides: s.modelOverrides,
  };
}

/** The gateways that have a token: their models are listed. */
function withToken(service: GatewayService): string[] {
  return service.registry
    .gateways()
    .filter((g) => service.gateways.get(g.id) && service.registry.tokensOf(g.id).activeName())
    .map((g) => g.id);
}

/** What the cached model lists hang on: each gateway's address and token; the profile settings, names and prices for their look. */
function listSource(service: GatewayService): LmListSource {
  const registry = service.registry;
  return {
    gateways: service.gateways,
    boundMs: LIST_ACROSS_BOUND_MS,
    listed: () => withToken(service),
    listKey: (id) => {
      const e = service.clientOf(id).endpoints();
      const tokens = registry.tokensOf(id);
      return JSON.stringify([e.base, e.backups, tokens.activeName(), tokens.activeFingerprint()]);
    },
    lookKey: (lists) =>
      JSON.stringify([
        registry.activeId(),
        // (with the surfaces each gateway's refusals taught: a model learnt to be responses-only is described again)
        lists.map((l) => [
          l.gateway.name,
          profileSettings(service, l.gateway.id),
          service.clientOf(l.gateway.id).learntSurfaces(),
        ]),
        lists
          .filter((l) => l.gateway.id === registry.activeId())
          .map((l) => l.models.map((m) => [service.price(m.id).text, service.price(m.id).groups])),
      ]),
    prepare: async () => {
      // Prices are the active gateway's, read alongside and never waited for (a models event when they come).
      void service.refreshPricing();
      await Promise.all(registry.gateways().map((g) => registry.tokensOf(g.id).activeToken())).catch(() => undefined);
    },
  };
}

/**
 * The gateway error as VS Code's LanguageModelError where a kind fits, keeping the sentence and the error
 * as cause. A request that may have been billed says so in it: a provider has no warning part of its own,
 * and VS Code's chat shows this message to the user (never to the model); its Retry is the user's choice.
 */
function lmError(e: GatewayError): Error {
  const sentence = [errorSentence(e), billedWarning(e)].filter(Boolean).join(' ');
  const code = lmErrorCode(e);
  const error = code ? vscode.LanguageModelError[code](sentence) : new Error(sentence);
  error.cause = e;
  return error;
}

class RelayChatProvider implements vscode.LanguageModelChatProvider<RelayModelInfo> {
  readonly emitter = new vscode.EventEmitter<void>();
  readonly onDidChangeLanguageModelChatInformation = this.emitter.event;
  /** each gateway's /v1/models read once and kept until its address or token changes */
  readonly models: LmModelLists;
  private readonly thinking = new ThinkingCache();
  /** the window's one tokenizer and count cache, shared with the receipts' local counts */
  private readonly tokens: TokenCounter;
  constructor(
    private readonly service: GatewayService,
    private readonly origins: ToolCallOrigins,
  ) {
    this.tokens = service.tokenizer;
    this.models = new LmModelLists(listSource(service), () => this.emitter.fire());
  }

  async provideLanguageModelChatInformation(
    _o: vscode.PrepareLanguageModelChatModelOptions,
    token: vscode.CancellationToken,
  ): Promise<RelayModelInfo[]> {
    const lists = await withAbort(token, (signal) => this.models.list(signal));
    return lists.flatMap((l) => {
      const settings = profileSettings(this.service, l.gateway.id);
      const client = this.service.clientOf(l.gateway.id);
      return l.models
        .filter(canChat)
        .map((m) =>
          this.info(
            l.gateway,
            pickerFields(l.gateway.name, lists.length),
            m,
            modelProfile(m, settings, client.learntSurface(m.id)),
          ),
        );
    });
  }

  private info(gateway: GatewayProfile, picker: PickerFields, m: ModelInfo, profile: ModelProfile): RelayModelInfo {
    // Prices are known for the active gateway only: another gateway's models say none rather than a wrong one.
    const active = gateway.id === this.service.registry.activeId();
    const price = active ? this.service.price(m.id) : { text: undefined, groups: [] };
    return {
      id: lmModelId(gateway.id, m.id),
      name: m.id,
      family: m.id,
      version: '1',
      detail: [gateway.name, surfaceWords(profile), price.text].filter(Boolean).join(' · '),
      tooltip: [
        vscode.l10n.t('Gateway: {0}', gateway.name),
        describe(m, profile),
        price.groups.length ? vscode.l10n.t('groups: {0}', price.groups.join(', ')) : '',
      ]
        .filter(Boolean)
        .join(' · '),
      maxInputTokens: profile.maxInputTokens,
      maxOutputTokens: profile.maxOutputTokens,
      // Agent mode lists only models with tool calling; `capabilities` must always be an object.
      capabilities: { toolCalling: profile.toolCalling, imageInput: profile.imageInput },
      ...picker,
      route: { gateway: gateway.id, model: m.id },
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
    const set = this.service.gateways;
    // The model's own gateway (its token only), then the fallbacks listed for its model id.
    const routes = lmRoutes(model, set, this.service.registry.activeId(), this.service.current.fallbacks);
    // options.modelOptions is never forwarded: Copilot puts its telemetry keys there.
    const asked = routes[0]?.model ?? model.id;
    const { model: _model, ...req } = lmToChatRequest(
      asked,
      model.profile,
      toLmMessages(messages),
      { tools: options.tools, toolMode: options.toolMode },
      this.thinking,
    );
    try {
      // A failover (before the next gateway's answer) and an answer that did not simply end (after it) are
      // said in the reply as notice lines, never silently; they are left out when VS Code hands them back.
      const events = chatStreamAcross(set, routes, { ...req, signal: cancel.signal });
      for await (const e of withNotices(events, req.maxTokens))
        this.report(e, progress, (id) => routes.find((r) => r.gateway === id)?.model ?? asked);
    } catch (e) {
      if (e instanceof GatewayError && e.kind !== 'aborted') throw lmError(e);
      throw e;
    } finally {
      cancel.dispose();
    }
  }

  /** `modelOn(gateway)`: the model id asked of the gateway that answered (reasoning is kept per model). */
  private report(
    e: ChatEvent,
    progress: vscode.Progress<vscode.LanguageModelResponsePart>,
    modelOn: (gateway: string | undefined) => string,
  ): void {
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
        // The gateway tools these calls name run on the gateway that answered.
        this.origins.remember(e.result.gateway?.id, e.result.toolCalls);
        // The reply's reasoning goes back in front of these calls, on every surface (the stable API cannot carry it).
        this.thinking.rememberReply(modelOn(e.result.gateway?.id), e.result);
        break;
      default:
        break;
    }
  }

  /** Counted by content and kept (VS Code asks again for every message on every turn): see host/lm/tokenCounter.ts. */
  provideTokenCount(_m: RelayModelInfo, text: string | vscode.LanguageModelChatRequestMessage): Promise<number> {
    return Promise.resolve(
      typeof text === 'string' ? this.tokens.count(text) : this.tokens.countParts(text.content.map(toLmPart)),
    );
  }
}

export function registerLanguageModels(
  context: vscode.ExtensionContext,
  hub: Registrar,
  service: GatewayService,
  log: vscode.LogOutputChannel,
  origins: ToolCallOrigins,
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
  const provider = new RelayChatProvider(service, origins);
  const changed = () => provider.models.serviceChanged();
  const watched = new TokenWatch(service, changed);
  context.subscriptions.push(
    provider.emitter,
    hub.languageModels(provider),
    watched,
    // What the lists hang on (addresses and tokens) and how they are described (settings, names, prices,
    // learnt surfaces); never a request record or a balance: VS Code asks again only when models change.
    service.onDidChangeConfiguration(() => {
      watched.update();
      changed();
    }),
    service.onDidChangeToken(changed),
    service.onDidChangeModels(changed),
  );
}

/** Hears the token stores of every gateway (a token added to another gateway lists its models). */
class TokenWatch {
  private readonly subs = new Map<string, { dispose(): void }>();
  constructor(
    private readonly service: GatewayService,
    private readonly changed: () => void,
  ) {
    this.update();
  }

  update(): void {
    const ids = new Set(this.service.registry.gateways().map((g) => g.id));
    for (const [id, sub] of this.subs)
      if (!ids.has(id)) {
        sub.dispose();
        this.subs.delete(id);
      }
    for (const id of ids)
      if (!this.subs.has(id)) this.subs.set(id, this.service.registry.tokensOf(id).onDidChange(this.changed));
  }

  dispose(): void {
    for (const sub of this.subs.values()) sub.dispose();
    this.subs.clear();
  }
}
