/**
 * The light stand-ins registered at activation: each forwards to the real implementation once the
 * rest of the extension has loaded (and asks for that load on first use). Activation code: no core.
 */
import * as vscode from 'vscode';

export type Load = () => Promise<void>;

/** A tree view: `placeholder` items until the real provider arrives; showing it asks for the load. */
export class DelegatingTree<T> implements vscode.TreeDataProvider<T> {
  private impl: vscode.TreeDataProvider<T> | undefined;
  private readonly emitter = new vscode.EventEmitter<T | T[] | undefined | void>();
  readonly onDidChangeTreeData = this.emitter.event;
  private sub: vscode.Disposable | undefined;

  constructor(
    private readonly load: Load,
    private readonly placeholder: () => vscode.TreeItem[],
  ) {}

  set(impl: vscode.TreeDataProvider<T>): vscode.Disposable {
    this.impl = impl;
    this.sub = impl.onDidChangeTreeData?.((e) => this.emitter.fire(e ?? undefined));
    this.emitter.fire();
    return { dispose: () => this.sub?.dispose() };
  }

  getTreeItem(e: T): vscode.TreeItem | Thenable<vscode.TreeItem> {
    return this.impl ? this.impl.getTreeItem(e) : (e as unknown as vscode.TreeItem);
  }

  getChildren(e?: T): vscode.ProviderResult<T[]> {
    if (this.impl) return this.impl.getChildren(e);
    void this.load();
    return this.placeholder() as unknown as T[];
  }
}

/** A webview view: resolved by the real provider, loaded when the view first shows. */
export class DelegatingWebviewView implements vscode.WebviewViewProvider {
  impl: vscode.WebviewViewProvider | undefined;
  constructor(private readonly load: Load) {}

  async resolveWebviewView(
    view: vscode.WebviewView,
    ctx: vscode.WebviewViewResolveContext,
    token: vscode.CancellationToken,
  ): Promise<void> {
    if (!this.impl) await this.load();
    await this.impl?.resolveWebviewView(view, ctx, token);
  }
}

/** The language-model provider: model lists, replies and token counts, all from the real one. */
export class DelegatingLanguageModels implements vscode.LanguageModelChatProvider {
  private impl: vscode.LanguageModelChatProvider | undefined;
  private readonly emitter = new vscode.EventEmitter<void>();
  readonly onDidChangeLanguageModelChatInformation = this.emitter.event;
  constructor(private readonly load: Load) {}

  set(impl: vscode.LanguageModelChatProvider): vscode.Disposable {
    this.impl = impl;
    const sub = impl.onDidChangeLanguageModelChatInformation?.(() => this.emitter.fire());
    this.emitter.fire();
    return { dispose: () => sub?.dispose() };
  }

  private async real(): Promise<vscode.LanguageModelChatProvider> {
    if (!this.impl) await this.load();
    if (!this.impl) throw new Error('Model Relay did not load.');
    return this.impl;
  }

  async provideLanguageModelChatInformation(
    o: vscode.PrepareLanguageModelChatModelOptions,
    t: vscode.CancellationToken,
  ): Promise<vscode.LanguageModelChatInformation[]> {
    return (await (await this.real()).provideLanguageModelChatInformation(o, t)) ?? [];
  }

  async provideLanguageModelChatResponse(
    m: vscode.LanguageModelChatInformation,
    msgs: readonly vscode.LanguageModelChatRequestMessage[],
    o: vscode.ProvideLanguageModelChatResponseOptions,
    p: vscode.Progress<vscode.LanguageModelResponsePart>,
    t: vscode.CancellationToken,
  ): Promise<void> {
    await (await this.real()).provideLanguageModelChatResponse(m, msgs, o, p, t);
  }

  async provideTokenCount(
    m: vscode.LanguageModelChatInformation,
    text: string | vscode.LanguageModelChatRequestMessage,
    t: vscode.CancellationToken,
  ): Promise<number> {
    return (await this.real()).provideTokenCount(m, text, t);
  }
}

/** A language-model tool: prepared and invoked by the real one. */
export class DelegatingTool implements vscode.LanguageModelTool<unknown> {
  impl: vscode.LanguageModelTool<unknown> | undefined;
  constructor(private readonly load: Load) {}

  private async real(): Promise<vscode.LanguageModelTool<unknown>> {
    if (!this.impl) await this.load();
    if (!this.impl) throw new Error('Model Relay did not load.');
    return this.impl;
  }

  async prepareInvocation(
    o: vscode.LanguageModelToolInvocationPrepareOptions<unknown>,
    t: vscode.CancellationToken,
  ): Promise<vscode.PreparedToolInvocation | undefined> {
    const real = await this.real();
    return (await real.prepareInvocation?.(o, t)) ?? undefined;
  }

  async invoke(
    o: vscode.LanguageModelToolInvocationOptions<unknown>,
    t: vscode.CancellationToken,
  ): Promise<vscode.LanguageModelToolResult> {
    const r = await (await this.real()).invoke(o, t);
    if (!r) throw new Error('The tool returned nothing.');
    return r;
  }
}
