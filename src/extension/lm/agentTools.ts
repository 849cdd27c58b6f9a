/**
 * The gateway as tools for VS Code's agent: `modelRelay_generateImage` (billed: confirmed first,
 * naming the model), `modelRelay_listModels` and `modelRelay_diagnose` (confirmed first: it sends the
 * token to the gateway, and its generation checks and tool probes are small billed calls). Usable
 * from agent mode and as `#` references; each tool's name, schema and description are in
 * package.json. They work on the active gateway, unless a model of another gateway called them
 * (ToolCallOrigins): then on that gateway, with its token (the diagnosis is the active gateway's).
 */
import * as vscode from 'vscode';
import { GatewayError, noImageError, type Capability, type GatewayClient } from '../../gateway';
import { withAbort } from '../../host/cancellation';
import { errorSentence } from '../../host/errorWords';
import type { ToolCallOrigins } from '../../host/lm/lmGateways';
import {
  diagnoseConfirmation,
  imageConfirmation,
  imageToolInput,
  modelsText,
  type ImageToolInput,
} from '../../host/lm/toolText';
import type { GatewayService } from '../gateways/gatewayService';
import type { Registrar } from '../lazy/registrar';
import { saveGeneratedImage } from '../media/mediaCommon';
import { imageDataPart } from './lmParts';

/** Images larger than this stay out of the tool result (VS Code caps images per result at about 2.5 MB). */
const MAX_RESULT_IMAGE_BYTES = 2 * 1024 * 1024;

// Typed for 1.104; from 1.106 a result may also carry a LanguageModelDataPart (the image).
const textResult = (...parts: unknown[]) => new vscode.LanguageModelToolResult(parts as vscode.LanguageModelTextPart[]);

/** Where a tool call runs: the gateway whose model called it (one of ours lately), else the active one. */
interface ToolTarget {
  client: GatewayClient;
  imageModel: string;
  /** the price of a model, known for the active gateway only (none said for another) */
  price(model: string): string | undefined;
}

function targetOf(service: GatewayService, origins: ToolCallOrigins, name: string, input: unknown): ToolTarget {
  const id = origins.gatewayOf(name, input);
  if (!id || id === service.registry.activeId() || !service.gateways.get(id))
    return {
      client: service.client,
      imageModel: service.current.models.image,
      price: (m) => service.price(m).text,
    };
  return { client: service.clientOf(id), imageModel: service.settingsOf(id).models.image, price: () => undefined };
}

/** A failure the model can read: the gateway's cause and fix, not a stack. */
function toolError(e: unknown): Error {
  return new Error(e instanceof GatewayError ? errorSentence(e) : e instanceof Error ? e.message : String(e));
}

const IMAGE_TOOL = 'modelRelay_generateImage';
const MODELS_TOOL = 'modelRelay_listModels';

class GenerateImageTool implements vscode.LanguageModelTool<ImageToolInput> {
  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly service: GatewayService,
    private readonly origins: ToolCallOrigins,
  ) {}

  async prepareInvocation(
    o: vscode.LanguageModelToolInvocationPrepareOptions<ImageToolInput>,
  ): Promise<vscode.PreparedToolInvocation> {
    await this.service.refreshPricing();
    const target = targetOf(this.service, this.origins, IMAGE_TOOL, o.input);
    const model = target.imageModel;
    const input = imageToolInput(o.input, model);
    if ('error' in input) return { invocationMessage: vscode.l10n.t('Model Relay: cannot generate the image') };
    const c = imageConfirmation(model, input.prompt, input.size, target.price(model));
    return {
      invocationMessage: vscode.l10n.t('Generating an image with {0}…', model),
      confirmationMessages: { title: c.title, message: new vscode.MarkdownString(c.message) },
    };
  }

  async invoke(
    o: vscode.LanguageModelToolInvocationOptions<ImageToolInput>,
    token: vscode.CancellationToken,
  ): Promise<vscode.LanguageModelToolResult> {
    const target = targetOf(this.service, this.origins, IMAGE_TOOL, o.input);
    const model = target.imageModel;
    const input = imageToolInput(o.input, model);
    if ('error' in input) throw new Error(input.error);
    try {
      const r = await withAbort(token, (signal) =>
        target.client.generateImage({
          model,
          prompt: input.prompt,
          signal,
          ...(input.size ? { size: input.size } : {}),
        }),
      );
      const image = r.images[0];
      if (!image) throw noImageError();
      const file = await saveGeneratedImage(this.context, this.service, image, input.prompt);
      const where = vscode.workspace.asRelativePath(file);
      const text = new vscode.LanguageModelTextPart(
        vscode.l10n.t(
          'Generated one image with {0} and saved it to {1} ({2}, {3}, {4} bytes).',
          model,
          where,
          file.fsPath,
          image.mime,
          image.bytes.length,
        ),
      );
      const picture = image.bytes.length <= MAX_RESULT_IMAGE_BYTES ? imageDataPart(image.bytes, image.mime) : undefined;
      return picture ? textResult(text, picture) : textResult(text);
    } catch (e) {
      throw toolError(e);
    }
  }
}

class ListModelsTool implements vscode.LanguageModelTool<{ capability?: Capability }> {
  constructor(
    private readonly service: GatewayService,
    private readonly origins: ToolCallOrigins,
  ) {}

  async invoke(
    o: vscode.LanguageModelToolInvocationOptions<{ capability?: Capability }>,
    token: vscode.CancellationToken,
  ): Promise<vscode.LanguageModelToolResult> {
    try {
      const target = targetOf(this.service, this.origins, MODELS_TOOL, o.input);
      const models = await withAbort(token, (signal) =>
        target.client === this.service.client ? this.service.refreshModels(signal) : target.client.listModels(signal),
      );
      return textResult(new vscode.LanguageModelTextPart(modelsText(models, o.input.capability)));
    } catch (e) {
      throw toolError(e);
    }
  }
}

class DiagnoseTool implements vscode.LanguageModelTool<Record<string, never>> {
  constructor(
    private readonly service: GatewayService,
    private readonly diagnoseMarkdown: (signal: AbortSignal) => Promise<string>,
  ) {}

  /** Asked before it runs, like the image tool: it sends the token to the gateway and makes small billed calls. */
  prepareInvocation(): vscode.PreparedToolInvocation {
    const address = this.service.current.baseUrl;
    const c = diagnoseConfirmation(this.service.gateway?.name ?? address, address);
    return {
      invocationMessage: vscode.l10n.t('Diagnosing the gateway connection…'),
      confirmationMessages: { title: c.title, message: new vscode.MarkdownString(c.message) },
    };
  }

  async invoke(
    _o: vscode.LanguageModelToolInvocationOptions<Record<string, never>>,
    token: vscode.CancellationToken,
  ): Promise<vscode.LanguageModelToolResult> {
    const report = await withAbort(token, (signal) => this.diagnoseMarkdown(signal));
    return textResult(new vscode.LanguageModelTextPart(report));
  }
}

export function registerTools(
  context: vscode.ExtensionContext,
  hub: Registrar,
  service: GatewayService,
  log: vscode.LogOutputChannel,
  diagnoseMarkdown: (signal: AbortSignal) => Promise<string>,
  origins: ToolCallOrigins,
): void {
  if (typeof (vscode as { lm?: { registerTool?: unknown } }).lm?.registerTool !== 'function') {
    log.info(
      vscode.l10n.t(
        'VS Code {0} has no language model tools API; the gateway tools are not offered to the agent.',
        vscode.version,
      ),
    );
    return;
  }
  context.subscriptions.push(
    hub.tool(IMAGE_TOOL, new GenerateImageTool(context, service, origins)),
    hub.tool(MODELS_TOOL, new ListModelsTool(service, origins)),
    hub.tool('modelRelay_diagnose', new DiagnoseTool(service, diagnoseMarkdown)),
  );
}
