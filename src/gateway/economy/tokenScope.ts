/**
 * Which token the per-token state (the balance, the model capabilities of its group) belongs to.
 * The token is a getter read on every request, so a switch is noticed where that state is used:
 * `current()` fingerprints the token now and, when it is another one, moves the generation on and
 * tells the owners to forget. A read that started under an older generation never writes its
 * answer (it may carry the previous token's balance). Only a hash of the token is kept.
 */
import { createHash } from 'node:crypto';

const fingerprint = (token: string | undefined) =>
  token === undefined ? '' : createHash('sha256').update(token).digest('base64').slice(0, 22);

export class TokenScope {
  private seen: string | undefined;
  private gen = 0;
  /** looks at the token, numbered: one that answers after a later one has decided nothing */
  private asked = 0;
  private decided = 0;
  private readonly forgetters: Array<() => void> = [];

  constructor(private readonly token: () => Promise<string | undefined>) {}

  /** Called when the token changes (and when the gateway does: see `renew`). */
  onForget(f: () => void): void {
    this.forgetters.push(f);
  }

  /** The generation that state read now belongs to; forgets what the previous token left. */
  async current(): Promise<number> {
    const ticket = ++this.asked;
    const now = fingerprint(await this.token());
    if (ticket < this.decided) return this.gen;
    this.decided = ticket;
    if (this.seen !== undefined && this.seen !== now) this.renew();
    this.seen = now;
    return this.gen;
  }

  /** Whether state read under `gen` still belongs to the token in use. */
  holds(gen: number): boolean {
    return gen === this.gen;
  }

  /** Everything read so far is stale (another token, or another gateway). */
  renew(): void {
    this.gen++;
    for (const f of this.forgetters) f();
  }
}
