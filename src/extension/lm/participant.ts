/**
 * The `@relay` chat participant: /models, /diagnose and /image in VS Code's own chat. It works on the
 * active gateway, unless the model picked in the chat is one of another gateway's (ours, listed as
 * `<gateway id>/<model id>`): then on that gateway, with its token only.
 */
import * as vscode from 'vscode';
import { GatewayError, endingWords, noImageError, surfaceMoveWords, type GatewayClient } from '../../gateway';
import { abortOn } from '../../host/cancellation';
import { LM_VENDOR, PARTICIPANT_NAME } from '../../host/commandIds';
import { billedWarning, errorMarkdown } from '../../host/errorWords';
import { gatewayOfModel } from '../../host/lm/lmGateways';
import { modelProfile } from '../../host/lm/modelProfile';
import { savedImageMarkdown } from '../../host/media/mediaWords';
import type { GatewayService } from '../gateways/gatewayService';
import type { RelaySettings } from '../gateways/settings';
import type { Registrar } from '../lazy/registrar';
import { saveGeneratedImage } from '../media/mediaCommon';

/** The diagnosis as markdown (the diagnose feature's report). */
export type DiagnoseMarkdown = (signal: AbortSignal) => Promise<string>;

/** Where a request goes: the gateway's client and settings, and the chat model picked there (another gateway's only). */
interface Target {
  client: GatewayClient;
  settings: RelaySettings;
  picked?: string;
}

/** The active gateway, or the gateway of the model picked in the chat when that is another of ours. */
function targetOf(service: GatewayService, model: vscode.LanguageModelChat | undefined): Target {
  const active = service.registry.activeId();
  const other = model?.vendor === LM_VENDOR ? gatewayOfModel(model.id, service.gateways, active) : undefined;
  if (!other) return { client: service.client, settings: service.current };
  return { client: service.clientOf(other.gateway), settings: service.settingsOf(other.gateway), picked: other.model };
}

async function models(target: Target, stream: vscode.ChatResponseStream, signal: AbortSignal): Promise<void> {
  const list = await target.client.listModels(signal);
  stream.markdown(
    `${vscode.l10n.t('**{0} models visible to this token** (listing shows visibility, not that generation works):', list.length)}\n\n`,
  );
  stream.markdown(
    list.map((m) => `- \`${m.id}\`${m.capabilities ? ` — ${m.capabilities.join(', ')}` : ''}`).join('\n'),
  );
}

async function image(
  context: vscode.ExtensionContext,
  service: GatewayService,
  target: Target,
  request: vscode.ChatRequest,
  stream: vscode.ChatResponseStream,
  signal: AbortSignal,
): Promise<void> {
  const prompt = request.prompt.trim();
  if (!prompt) {
    stream.markdown(vscode.l10n.t('Give a prompt: `@relay /image a lighthouse at dusk`.'));
    return;
  }
  const model = target.settings.models.image;
  if (!model) {
    stream.markdown(vscode.l10n.t('Set `modelRelay.models.image` to an image model first.'));
    return;
  }
  stream.progress(vscode.l10n.t('Generating with {0}…', model));
  const r = await target.client.generateImage({ model, prompt, signal });
  const picture = r.images[0];
  if (!picture) throw noImageError();
  const file = await saveGeneratedImage(context, service, picture, prompt);
  stream.markdown(savedImageMarkdown(prompt, file.toString(), vscode.workspace.asRelativePath(file)));
}

async function chat(
  target: Target,
  request: vscode.ChatRequest,
  stream: vscode.ChatResponseStream,
  signal: AbortSignal,
): Promise<void> {
  const s = target.settings;
  const model = target.picked ?? s.models.chat;
  if (!model) {
    stream.markdown(
      vscode.l10n.t('Set `modelRelay.models.chat`, or pick a Model Relay model in the chat model picker.'),
    );
    return;
  }
  // A model picked in the chat answers on its own surface (as in VS Code's chat); else the default surface's model.
  const surface = target.picked
    ? modelProfile(
        { id: model, capabilities: target.client.capabilitiesOf(model) },
        {
          defaultSurface: s.defaultSurface,
          nativeModel: s.models.native,
          maxTokens: s.maxTokens,
          overrides: s.modelOverrides,
        },
        target.client.learntSurface(model),
      ).surface
    : s.defaultSurface;
  for await (const e of target.client.chatStream({
    surface,
    model: !target.picked && s.defaultSurface === 'native' ? s.models.native || model : model,
    messages: [{ role: 'user', content: request.prompt }],
    maxTokens: s.maxTokens,
    signal,
  })) {
    if (e.type === 'text') stream.markdown(e.text);
    if (e.type !== 'done') continue;
    // The gateway refused the model where it was asked and said where it answers: said once, under the reply.
    if (e.result.surfaceMove?.learntNow) stream.markdown(`\n\n_${surfaceMoveWords(e.result.surfaceMove)}_`);
    // An answer cut by max tokens, stopped by a content filter or ended otherwise says so (the core's rule).
    const ending = endingWords(e.result.finishReason, s.maxTokens);
    if (ending) warn(stream, ending);
  }
}

/** VS Code's own command that opens its chat and, with `{ query }`, sends that message. */
const OPEN_CHAT = 'workbench.action.chat.open';

/**
 * A warning under the reply: VS Code's warning part where this VS Code lets the extension push one (it is
 * proposed API, refused unless enabled), else a line with the warning icon. Either way the user's, not a
 * model's: @relay sends no history to the gateway.
 */
function warn(stream: vscode.ChatResponseStream, text: string): void {
  const warning = (stream as { warning?: (message: string) => void }).warning;
  if (typeof warning === 'function')
    try {
      warning.call(stream, text);
      return;
    } catch {
      /* proposed API not enabled for this extension: the icon line below */
    }
  const md = new vscode.MarkdownString('\n\n$(warning) ', true);
  md.appendText(text);
  stream.markdown(md);
}

/**
 * A failure that may have been billed (it was not sent again): the warning, and one click to ask the same
 * thing again, saying it may be billed again.
 */
function offerBilledRetry(e: GatewayError, request: vscode.ChatRequest, stream: vscode.ChatResponseStream): void {
  const warning = billedWarning(e);
  if (!warning) return;
  warn(stream, warning);
  const command = request.command ? `/${request.command} ` : '';
  stream.button({
    command: OPEN_CHAT,
    title: vscode.l10n.t('Retry (may be billed again)'),
    arguments: [{ query: `@${PARTICIPANT_NAME} ${command}${request.prompt}` }],
  });
}

export function registerParticipant(
  context: vscode.ExtensionContext,
  hub: Registrar,
  service: GatewayService,
  log: vscode.LogOutputChannel,
  diagnoseMarkdown: DiagnoseMarkdown,
): void {
  if (typeof (vscode as { chat?: { createChatParticipant?: unknown } }).chat?.createChatParticipant !== 'function') {
    log.info(vscode.l10n.t('VS Code {0} has no chat participant API; @relay is not available.', vscode.version));
    return;
  }
  const handler: vscode.ChatRequestHandler = async (request, _ctx, stream, token) => {
    const ac = abortOn(token);
    const target = targetOf(service, (request as { model?: vscode.LanguageModelChat }).model);
    try {
      switch (request.command) {
        case 'models':
          return await models(target, stream, ac.signal);
        case 'diagnose': {
          stream.progress(vscode.l10n.t('Running the diagnosis…'));
          stream.markdown(await diagnoseMarkdown(ac.signal));
          return;
        }
        case 'image':
          return await image(context, service, target, request, stream, ac.signal);
        default:
          return await chat(target, request, stream, ac.signal);
      }
    } catch (e) {
      if (e instanceof GatewayError && e.kind === 'aborted') return;
      stream.markdown(errorMarkdown(e));
      if (e instanceof GatewayError) offerBilledRetry(e, request, stream);
    } finally {
      ac.dispose();
    }
  };
  context.subscriptions.push(hub.participant(handler));
}
