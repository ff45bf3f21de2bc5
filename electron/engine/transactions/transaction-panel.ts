import type { TokenService } from '../vault/token-service';
import type { StagedOperation, TransactionRecord, TransactionStore } from './transaction-store';

export interface EnlistedOperation {
  token_id: string;
  operation: StagedOperation['op'];
  enlisted_at: string;
  /**
   * The token's data under its mask (for a delete, the token being deleted), never plaintext. Null when the token
   * has no mask, and once the transaction has ended (its staged copies are gone).
   */
  data: unknown;
}

/** A transaction as the GUI's transaction panel shows it. */
export interface TransactionView extends TransactionRecord {
  /** Milliseconds until it expires; 0 once it has ended. */
  time_left_ms: number;
  operations: EnlistedOperation[];
}

/** The read side for the GUI: every kept transaction with its state, time left and masked operations. */
export class TransactionPanel {
  constructor(
    private readonly store: TransactionStore,
    private readonly tokens: TokenService,
  ) {}

  list(): TransactionView[] {
    return this.store.list().map((record) => this.view(record));
  }

  get(id: string): TransactionView | undefined {
    const record = this.store.get(id);
    return record && this.view(record);
  }

  private view(record: TransactionRecord): TransactionView {
    const timeLeft = record.state === 'open' ? Math.max(0, Date.parse(record.expires_at) - Date.now()) : 0;
    return {
      ...record,
      time_left_ms: timeLeft,
      operations: this.store.operations(record.id).map((op) => ({
        token_id: op.token_id,
        operation: op.op,
        enlisted_at: op.enlisted_at,
        data: this.maskedData(op),
      })),
    };
  }

  private maskedData({ write, token_id }: StagedOperation): unknown {
    if (!write) return null;
    const token = write.op === 'delete' ? this.tokens.store.get(token_id) : write.token;
    return token ? (this.tokens.view(token, 'mask').data ?? null) : null;
  }
}
