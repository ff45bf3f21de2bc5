import type { TokenService } from '../vault/token-service';
import type { TransactionView } from '../../../shared/workbench/contract';
import type { StagedOperation, TransactionRecord, TransactionStore } from './transaction-store';

/**
 * The read side for the workbench: every kept transaction with its state, time left and operations, their token data
 * under its mask (for a delete, the token being deleted), never plaintext; null once the transaction has ended.
 */
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
