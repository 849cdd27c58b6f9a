/**
 * A base for objects that own subscriptions: `_register()` what you create, `dispose()` releases it
 * all once, newest first (the vscode-pull-request-github pattern). Replaces hand-kept arrays.
 */
import type * as vscode from 'vscode';

export abstract class Disposable implements vscode.Disposable {
  private readonly owned: vscode.Disposable[] = [];
  private disposed = false;

  /** Takes ownership of `d`; registered after disposal, it is disposed at once. */
  protected _register<T extends vscode.Disposable>(d: T): T {
    if (this.disposed) d.dispose();
    else this.owned.push(d);
    return d;
  }

  protected get isDisposed(): boolean {
    return this.disposed;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const d of this.owned.splice(0).reverse()) {
      try {
        d.dispose();
      } catch {
        /* one failing disposal must not keep the rest alive */
      }
    }
  }
}
