import { type Answer, answerOf, type AnyUnitRunner, type UnitRunner } from '../storage/unit';
import { type StoredToken, type TokenStore, type TokenWrite } from '../vault/token-store';
import { nowIso } from '../clock';
import type { TokenReader } from '../vault/token-service';
import { tokenIdOf } from './transaction-store';

const live = (token: StoredToken) => token.expires_at === null || token.expires_at > nowIso();

/**
 * The vault as seen from inside one transaction: committed tokens with that transaction's own staged writes
 * replayed over them, so a second PATCH builds on the first and a token created inside can be changed inside.
 *
 * Deduplication inside a transaction (our choice) matches committed tokens the transaction has not touched, then
 * tokens it created or changed itself; other open transactions' staged tokens are invisible to it (read-committed).
 * What it reads of the vault answers as the store over runner `R` does.
 */
export class StagedView<R extends AnyUnitRunner = UnitRunner> implements TokenReader {
  /** Token id → its state after the staged writes; null when deleted inside. */
  private readonly staged = new Map<string, StoredToken | null>();

  constructor(
    private readonly store: TokenStore<R>,
    writes: readonly TokenWrite[],
  ) {
    this.add(writes);
  }

  add(writes: readonly TokenWrite[]): void {
    for (const write of writes) this.staged.set(tokenIdOf(write), write.op === 'delete' ? null : write.token);
  }

  get(id: string): Answer<R, StoredToken | undefined> | StoredToken | undefined {
    if (!this.staged.has(id)) return this.store.get(id);
    const token = this.staged.get(id);
    return token && live(token) ? token : undefined;
  }

  idTaken(id: string): Answer<R, boolean> | boolean {
    return this.staged.has(id) ? this.staged.get(id) !== null : this.store.idTaken(id);
  }

  findByFingerprint(type: string, fingerprint: string): Answer<R, StoredToken | undefined> {
    return answerOf<R, StoredToken | undefined, StoredToken | undefined>(this.store.findByFingerprint(type, fingerprint), (committed) => {
      if (committed && !this.staged.has(committed.id)) return committed;
      for (const token of this.staged.values()) {
        if (token && token.type === type && token.fingerprint === fingerprint && live(token)) return token;
      }
      return undefined;
    });
  }
}
