/**
 * The stand-ins registered at activation, one class per kind of contribution: each forwards to the
 * real implementation once the main part has loaded, and asks for that load on first use. `Load`
 * never leaves a rejection unhandled: a failed load (already shown to the user by the loader, and
 * tried again on the next use) gives a tree no rows, a webview nothing, and an error to the caller
 * of a model, tool or participant. Activation code: no core.
 */
import * as vscode from 'vscode';

/** Loads the main part; resolves false when it could not (the loader has said why). */
export type Load = () => Promise<boolean>;

/** The error a caller gets when the main part could not load. */
const notLoaded = () => new Error(vscode.l10n.t('Model Relay did not load; see the error it showed.'));

/** A slot for the real implementation, with the load that fills it. */
abstract class StandIn<T> {
  protected impl: T | undefined;
  constructor(protected readonly load: Load) {}

  get implemented(): boolean {
    return this.impl !== undefined;
  }

  /** Takes `impl`; disposing the result empties the slot again (if it still holds `impl`). */
  set(impl: T): vscode.Disposable {
    this.impl = impl;
    const sub = this.attached(impl);
    return {
      dispose: () => {
        sub?.dispose();
        if (this.impl === impl) this.impl = undefined;
      },
    };
  }

  /** What the stand-in subscribes to on `impl` (its change events). */
  protected attached(_impl: T): vscode.Disposable | undefined {
    return undefined;
  }

  /** The implementation, loading the main part first if needed; undefined if it could not load. */
  protected async real(): Promise<T | undefined> {
    if (!this.impl) await this.load();
    return this.impl;
  }

  protected async required(): Promise<T> {
    const impl = await this.real();
    if (!impl) throw notLoaded();
    return impl;
  }
}

/** A tree view: the real provider's rows (VS Code shows its progress bar while the main part loads). */
export class TreeStandIn<T> extends StandIn<vscode.TreeDataProvider<T>> implements vscode.TreeDataProvider<T> {
  private readonly emitter = new vscode.EventEmitter<T | T[] | undefined | void>();
  readonly onDidChangeTreeData = this.emitter.event;

  protected override attached(impl: vscode.TreeDataProvider<T>): vscode.Disposable | undefined {
    this.emitter.fire();
    return impl.onDidChangeTreeData?.((e) => this.emitter.fire(e ?? undefined));
  }

  /** Elements come only from the real provider, so it is there when VS Code asks for their items. */
  getTreeItem(e: T): vscode.TreeItem | Thenable<vscode.TreeItem> {
    if (!this.impl) throw notLoaded();
    return this.impl.getTreeItem(e);
  }

  async getChildren(e?: T): Promise<T[]> {
    return (await (await this.real())?.getChildren(e)) ?? [];
  }

  getParent(e: T): vscode.ProviderResult<T> {
    return this.impl?.getParent?.(e);
  }

  resolveTreeItem(
    item: vscode.TreeItem,
    e: T,
    token: vscode.CancellationToken,
  ): vscode.ProviderResult<vscode.TreeItem> {
    return this.impl?.resolveTreeItem ? this.impl.resolveTreeItem(item, e, token) : item;
  }

  dispose(): void {
    this.emitter.dispose();
  }
}

/** A webview view: resolved by the real provider once loaded. */
export class WebviewViewStandIn extends StandIn<vscode.WebviewViewProvider> implements vscode.WebviewViewProvider {
  async resolveWebviewView(
    view: vscode.WebviewView,
    ctx: vscode.WebviewViewResolveContext,
    token: vscode.CancellationToken,
  ): Promise<void> {
    await (await this.real())?.resolveWebviewView(view, ctx, token);
  }
}

/** A language-model vendor: model lists, replies and token counts, all from the real provider. */
export class LanguageModelsStandIn
  extends StandIn<vscode.LanguageModelChatProvider>
  implements vscode.LanguageModelChatProvider
{
  private readonly emitter = new vscode.EventEmitter<void>();
  readonly onDidChangeLanguageModelChatInformation = this.emitter.event;

  protected override attached(impl: vscode.LanguageModelChatProvider): vscode.Disposable | undefined {
    this.emitter.fire();
    return impl.onDidChangeLanguageModelChatInformation?.(() => this.emitter.fire());
  }

  async provideLanguageModelChatInformation(
    o: vscode.PrepareLanguageModelChatModelOptions,
    t: vscode.CancellationToken,
  ): Promise<vscode.LanguageModelChatInformation[]> {
    return (await (await this.required()).provideLanguageModelChatInformation(o, t)) ?? [];
  }

  async provideLanguageModelChatResponse(
    m: vscode.LanguageModelChatInformation,
    msgs: readonly vscode.LanguageModelChatRequestMessage[],
    o: vscode.ProvideLanguageModelChatResponseOptions,
    p: vscode.Progress<vscode.LanguageModelResponsePart>,
    t: vscode.CancellationToken,
  ): Promise<void> {
    await (await this.required()).provideLanguageModelChatResponse(m, msgs, o, p, t);
  }

  async provideTokenCount(
    m: vscode.LanguageModelChatInformation,
    text: string | vscode.LanguageModelChatRequestMessage,
    t: vscode.CancellationToken,
  ): Promise<number> {
    return (await this.required()).provideTokenCount(m, text, t);
  }

  dispose(): void {
    this.emitter.dispose();
  }
}

/** A language-model tool: prepared and invoked by the real one. */
export class ToolStandIn
  extends StandIn<vscode.LanguageModelTool<unknown>>
  implements vscode.LanguageModelTool<unknown>
{
  async prepareInvocation(
    o: vscode.LanguageModelToolInvocationPrepareOptions<unknown>,
    t: vscode.CancellationToken,
  ): Promise<vscode.PreparedToolInvocation | undefined> {
    return (await (await this.required()).prepareInvocation?.(o, t)) ?? undefined;
  }

  async invoke(
    o: vscode.LanguageModelToolInvocationOptions<unknown>,
    t: vscode.CancellationToken,
  ): Promise<vscode.LanguageModelToolResult> {
    const r = await (await this.required()).invoke(o, t);
    if (!r) throw new Error('The tool returned nothing.');
    return r;
  }
}

/** A chat participant's handler: the real one. */
export class ParticipantStandIn extends StandIn<vscode.ChatRequestHandler> {
  readonly handle: vscode.ChatRequestHandler = async (req, ctx, stream, token) =>
    (await this.required())(req, ctx, stream, token);
}

/** A command: runs the implementation, loading the main part first if needed. */
export class CommandStandIn extends StandIn<(...args: unknown[]) => unknown> {
  constructor(
    load: Load,
    private readonly id: string,
  ) {
    super(load);
  }

  readonly run = async (...args: unknown[]): Promise<unknown> => {
    if (!this.impl && !(await this.load())) return undefined;
    if (!this.impl) throw new Error(vscode.l10n.t('Model Relay: the command {0} is not available.', this.id));
    return this.impl(...args);
  };
}
