/** The `@relay` chat participant: /models, /diagnose and /image in VS Code's own chat. */
import * as vscode from 'vscode';
import { GatewayError } from '../../gateway';
import { abortOn } from '../../host/cancellation';
import { errorMarkdown } from '../../host/errorWords';
import { savedImageMarkdown } from '../../host/media/mediaWords';
import type { GatewayService } from '../gateways/gatewayService';
import type { Registrar } from '../lazy/registrar';
import { generateAndSaveImage } from '../media/mediaCommon';

/** The diagnosis as markdown (the diagnose feature's report). */
export type DiagnoseMarkdown = (signal: AbortSignal) => Promise<string>;

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
    try {
      switch (request.command) {
        case 'models': {
          const models = await service.refreshModels(ac.signal);
          stream.markdown(
            `${vscode.l10n.t('**{0} models visible to this token** (listing shows visibility, not that generation works):', models.length)}\n\n`,
          );
          stream.markdown(
            models.map((m) => `- \`${m.id}\`${m.capabilities ? ` — ${m.capabilities.join(', ')}` : ''}`).join('\n'),
          );
          return;
        }
        case 'diagnose': {
          stream.progress(vscode.l10n.t('Running the diagnosis…'));
          stream.markdown(await diagnoseMarkdown(ac.signal));
          return;
        }
        case 'image': {
          const prompt = request.prompt.trim();
          if (!prompt) {
            stream.markdown(vscode.l10n.t('Give a prompt: `@relay /image a lighthouse at dusk`.'));
            return;
          }
          const model = service.current.models.image;
          if (!model) {
            stream.markdown(vscode.l10n.t('Set `modelRelay.models.image` to an image model first.'));
            return;
          }
          stream.progress(vscode.l10n.t('Generating with {0}…', model));
          const { file } = await generateAndSaveImage(context, service, model, prompt, ac.signal);
          stream.markdown(savedImageMarkdown(prompt, file.toString(), vscode.workspace.asRelativePath(file)));
          return;
        }
        default: {
          const model = service.current.models.chat;
          if (!model) {
            stream.markdown(
              vscode.l10n.t('Set `modelRelay.models.chat`, or pick a Model Relay model in the chat model picker.'),
            );
            return;
          }
          for await (const e of service.client.chatStream({
            surface: service.current.defaultSurface,
            model: service.current.defaultSurface === 'native' ? service.current.models.native || model : model,
            messages: [{ role: 'user', content: request.prompt }],
            maxTokens: service.current.maxTokens,
            signal: ac.signal,
          })) {
            if (e.type === 'text') stream.markdown(e.text);
          }
        }
      }
    } catch (e) {
      if (e instanceof GatewayError && e.kind === 'aborted') return;
      stream.markdown(errorMarkdown(e));
    } finally {
      ac.dispose();
    }
  };
  context.subscriptions.push(hub.participant(handler));
}
