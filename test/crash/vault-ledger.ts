/**
 * What the crash harness knows about the vault: the state of every token it ever wrote as of its last acknowledged
 * write, and the groups of writes (one direct write, a tokenize batch, a transaction's commit) whose answer never
 * came because the service was killed. After a restart, `verify` compares what the service holds with that.
 */

/** A token's state: its data as JSON text (what was sent), or null when it must not exist. */
export type TokenState = string | null;

export interface GroupOp {
  tokenId: string;
  /** The state the op leaves; `before` is the state it found. */
  after: TokenState;
  before: TokenState;
}

/** Writes that land together or not at all. */
export interface WriteGroup {
  label: string;
  ops: GroupOp[];
  /**
   * Set when these are a transaction's writes: if its commit went unanswered and it is found not applied, it is
   * still open and must expire.
   */
  transaction?: UncommittedTransaction;
}

/** A transaction that was never committed: once its expiry has passed, the service must call it expired. */
export interface UncommittedTransaction {
  id: string;
  expiresAt: number;
  /** A rollback was sent (it may or may not have arrived before the kill). */
  rollbackSent: boolean;
}

/** Reads the revealed data of many tokens; absent ids are missing from the map. */
export type ReadTokens = (ids: string[]) => Promise<Map<string, unknown>>;
/** Asks the service to commit a transaction; resolves with the answer's status and detail. */
export type TryCommit = (id: string) => Promise<{ status: number; detail: string }>;

export class VaultLedger {
  private readonly known = new Map<string, TokenState>();
  private unanswered: WriteGroup[] = [];
  private uncommitted: UncommittedTransaction[] = [];
  /** Counts for the harness's closing line: write groups, and transactions committed or not. */
  readonly stats = { acknowledged: 0, unanswered: 0, committed: 0, notCommitted: 0 };

  state(tokenId: string): TokenState {
    return this.known.get(tokenId) ?? null;
  }

  /** The service answered: the group is applied. */
  acknowledged(group: WriteGroup): void {
    for (const op of group.ops) this.known.set(op.tokenId, op.after);
    this.stats.acknowledged += 1;
    if (group.transaction) this.stats.committed += 1;
  }

  /** The service never answered: the group is applied entirely or not at all. */
  unansweredGroup(group: WriteGroup): void {
    for (const op of group.ops) if (!this.known.has(op.tokenId)) this.known.set(op.tokenId, op.before);
    this.unanswered.push(group);
    this.stats.unanswered += 1;
  }

  /** Its writes must never appear; ids it would have created are recorded as absent. */
  notCommitted(group: WriteGroup, transaction: UncommittedTransaction): void {
    for (const op of group.ops) if (!this.known.has(op.tokenId)) this.known.set(op.tokenId, op.before);
    this.uncommitted.push(transaction);
    this.stats.notCommitted += 1;
  }

  /**
   * Checks the restarted service against the ledger and returns every disagreement (empty when all is well).
   * Unanswered groups are resolved to what was found, so the next cycle knows the state exactly again. Uncommitted
   * transactions whose expiry has passed are checked to answer 409 "expired" (or "rolled_back" when a rollback was
   * sent); the others wait for a later cycle, or for `waitForExpiries`.
   */
  async verify(read: ReadTokens, tryCommit: TryCommit, waitForExpiries = false): Promise<string[]> {
    const problems: string[] = [];
    const found = await read([...this.known.keys()]);
    const observed = (id: string): TokenState => (found.has(id) ? JSON.stringify(found.get(id)) : null);

    const settling = new Set<string>();
    for (const group of this.unanswered) {
      const verdicts = group.ops.map((op) => {
        settling.add(op.tokenId);
        const now = observed(op.tokenId);
        // A write that changes nothing (the same value drawn twice) tells nothing.
        if (now === op.after && now === op.before) return 'either';
        if (now === op.after) return 'applied';
        if (now === op.before) return 'not applied';
        problems.push(`${group.label}: token ${op.tokenId} is in neither the state before nor after`);
        return 'neither';
      });
      if (verdicts.includes('neither')) continue;
      const applied = verdicts.includes('applied');
      if (applied && verdicts.includes('not applied')) {
        const count = verdicts.filter((v) => v === 'applied').length;
        problems.push(`${group.label} is partly applied: ${count} of ${verdicts.filter((v) => v !== 'either').length} writes`);
        continue;
      }
      for (const op of group.ops) this.known.set(op.tokenId, applied ? op.after : op.before);
      if (!applied && group.transaction) this.uncommitted.push(group.transaction);
    }
    this.unanswered = [];

    for (const [id, expected] of this.known) {
      if (settling.has(id)) continue;
      const now = observed(id);
      if (now !== expected) {
        problems.push(`token ${id}: expected ${expected === null ? 'absent' : 'its acknowledged data'}, found ${now === null ? 'nothing' : 'other data'}`);
      }
    }

    if (waitForExpiries) {
      const last = Math.max(0, ...this.uncommitted.map((t) => t.expiresAt));
      await new Promise((done) => setTimeout(done, Math.max(0, last - Date.now()) + 50));
    }
    const due = this.uncommitted.filter((t) => t.expiresAt < Date.now());
    this.uncommitted = this.uncommitted.filter((t) => !due.includes(t));
    for (const transaction of due) {
      const { status, detail } = await tryCommit(transaction.id);
      const allowed = transaction.rollbackSent ? /expired|rolled_back/ : /expired/;
      if (status !== 409 || !allowed.test(detail)) {
        problems.push(`uncommitted transaction ${transaction.id} past its expiry: commit answered ${status} ${detail}`);
      }
    }
    return problems;
  }
}
