/** The `@relay` chat participant: /models, /diagnose and /image in VS Code's own chat. */
import * as vscode from 'vscode';
import { GatewayError, extensionForMime, mediaFileName } from '../../gateway';
import type { GatewayService } from '../gatewayService';
import { outputFolder } from '../media/mediaCommon';

export type DiagnoseMarkdown = (signal: AbortSignal) => Promise<string>;
let diagnoseProvider: DiagnoseMarkdown | undefined;

/** The diagnose feature plugs its markdown report in here. */
export function setDiagnoseMarkdownProvider(p: DiagnoseMarkdown): void {
  diagnoseProvider = p;
}

function errorMarkdown(e: unknown): string {
  if (e instanceof GatewayError) return `**${e.status ? `HTTP ${e.status}` : e.kind}** — ${e.cause}\n\n**Fix:** ${e.fix}${e.maskedToken ? `\n\nToken: \`${e.maskedToken}\`` : ''}`;
  return `Failed: ${e instanceof Error ? e.message : String(e)}`;
}

export function registerParticipant(context: vscode.ExtensionContext, service: GatewayService, log: vscode.LogOutputChannel): void {
  if (typeof (vscode as { chat?: { createChatParticipant?: unknown } }).chat?.createChatParticipant !== 'function') {
    log.info(`VS Code ${vscode.version} has no chat participant API; @relay is not available.`);
    return;
  }
  const handler: vscode.ChatRequestHandler = async (request, _ctx, stream, token) => {
    const ac = new AbortController();
    token.onCancellationRequested(() => ac.abort());
    try {
      switch (request.command) {
        case 'models': {
          const models = await service.refreshModels(ac.signal);
          stream.markdown(`**${models.length} models visible to this token** (listing shows visibility, not that generation works):\n\n`);
          stream.markdown(models.map((m) => `- \`${m.id}\`${m.capabilities ? ` — ${m.capabilities.join(', ')}` : ''}`).join('\n'));
          return;
        }
        case 'diagnose': {
          if (!diagnoseProvider) {
            stream.markdown('Diagnosis is not available in this build.');
            return;
          }
          stream.progress('Running the diagnosis…');
          stream.markdown(await diagnoseProvider(ac.signal));
          return;
        }
        case 'image': {
          const prompt = request.prompt.trim();
          if (!prompt) {
            stream.markdown('Give a prompt: `@relay /image a lighthouse at dusk`.');
            return;
          }
          const model = service.current.models.image;
          if (!model) {
            stream.markdown('Set `modelRelay.models.image` to an image model first.');
            return;
          }
          stream.progress(`Generating with ${model}…`);
          const r = await service.client.generateImage({ model, prompt, signal: ac.signal });
          const img = r.images[0];
          if (!img) throw new Error('no image returned');
          const dir = await outputFolder(context, 'images.outputFolder', '.model-relay/images');
          const file = vscode.Uri.joinPath(dir, mediaFileName(prompt, extensionForMime(img.mime)));
          await vscode.workspace.fs.writeFile(file, img.bytes);
          stream.markdown(`![${prompt.replace(/[[\]]/g, '')}](${file.toString()})\n\nSaved to `);
          stream.anchor(file, vscode.workspace.asRelativePath(file));
          return;
        }
        default: {
          const model = service.current.models.chat;
          if (!model) {
            stream.markdown('Set `modelRelay.models.chat`, or pick a Model Relay model in the chat model picker.');
            return;
          }
          for await (const e of service.client.chatStream({ surface: service.current.defaultSurface, model: service.current.defaultSurface === 'native' ? service.current.models.native || model : model, messages: [{ role: 'user', content: request.prompt }], maxTokens: service.current.maxTokens, signal: ac.signal })) {
            if (e.type === 'text') stream.markdown(e.text);
          }
        }
      }
    } catch (e) {
      if (e instanceof GatewayError && e.kind === 'aborted') return;
      stream.markdown(errorMarkdown(e));
    }
  };
  const participant = vscode.chat.createChatParticipant('modelRelay.relay', handler);
  participant.iconPath = vscode.Uri.joinPath(context.extensionUri, 'media', 'icon.png');
  context.subscriptions.push(participant);
}
