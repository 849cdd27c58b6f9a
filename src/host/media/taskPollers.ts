/**
 * One poller per video task id: a second watch of a task already polled is refused (the caller says
 * so), and a poller ending releases only its own ownership — never a newer poller's for the same id.
 * Plain Node, no `vscode`.
 */
export class TaskPollers {
  private readonly owners = new Map<string, AbortController>();

  /** Takes ownership of polling `id`; undefined when another poller holds it. */
  claim(id: string): AbortController | undefined {
    if (this.owners.has(id)) return undefined;
    const ac = new AbortController();
    this.owners.set(id, ac);
    return ac;
  }

  /** Ends `owner`'s hold on `id` (a no-op when a newer poller holds it now). */
  release(id: string, owner: AbortController): void {
    if (this.owners.get(id) === owner) this.owners.delete(id);
  }

  isPolled(id: string): boolean {
    return this.owners.has(id);
  }

  /** The ids polled now. */
  ids(): string[] {
    return [...this.owners.keys()];
  }

  /** Stops every poller (on dispose). */
  stopAll(): void {
    for (const ac of this.owners.values()) ac.abort();
    this.owners.clear();
  }
}
