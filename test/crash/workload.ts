import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { Agent, request } from 'undici';
import type { SeededRandom } from '../support/seeded-random';
import type { GroupOp, UncommittedTransaction, VaultLedger, WriteGroup } from './vault-ledger';

/** Token data for the writes: any JSON (deep, unicode, quotes, escapes), as the text that was sent. */
export class ValuePool {
  private readonly created: string[];
  /** PATCH data must replace, not merge (RFC 7386): anything but an object. */
  private readonly replacements: string[];

  constructor(private readonly random: SeededRandom) {
    const json = fc.jsonValue({ stringUnit: 'grapheme', maxDepth: 3 });
    const sample = (arbitrary: fc.Arbitrary<unknown>) =>
      fc.sample(arbitrary, { seed: random.int(0, 2 ** 31 - 1), numRuns: 500 }).map((v) => JSON.stringify(v));
    this.created = sample(json.filter((v) => v !== null));
    this.replacements = sample(json.filter((v) => v !== null && (typeof v !== 'object' || Array.isArray(v))));
  }

  data(): string {
    return this.random.pick(this.created);
  }

  replacement(): string {
    return this.random.pick(this.replacements);
  }
}

interface Answer {
  status: number;
  body: any;
}

export interface WorkloadOptions {
  url: string;
  key: string;
  ledger: VaultLedger;
  random: SeededRandom;
  values: ValuePool;
  workers: number;
  /** Unexpected answers (a 500, a 409 nobody should get) land here. */
  problems: string[];
  /** Proxy callers beside the writers, sending to this destination (the echo); their history is checked by `proxied`. */
  proxy?: { workers: number; destination: string; proxied: ProxiedCalls };
  /** Told each time a commit has been sent and its answer not yet read: the moment to kill for a commit in flight. */
  onCommitSent?: () => void;
}

/** The proxy calls each proxy worker got an answer to, in order, by the path that names them in history. */
export class ProxiedCalls {
  readonly byWorker: string[][] = [];
  count = 0;
}

const TX_HEADER = 'BT-TRANSACTION-ID';

/**
 * Concurrent writers until the service stops answering: direct creates, updates, deletes and tokenize batches, and
 * transactions that enlist several operations and then commit, roll back or stay open. Each worker touches only
 * tokens it created, so every token has at most one write in flight and the ledger knows its possible states.
 */
export class Workload {
  private readonly agent: Agent;

  constructor(private readonly o: WorkloadOptions) {
    this.agent = new Agent({ connections: o.workers + (o.proxy?.workers ?? 0), headersTimeout: 30_000, bodyTimeout: 30_000 });
  }

  /** Resolves when every worker has met a request without an answer (the kill). */
  async run(): Promise<void> {
    const proxies = Array.from({ length: this.o.proxy?.workers ?? 0 }, () => this.proxyWorker());
    await Promise.all([...Array.from({ length: this.o.workers }, () => this.worker()), ...proxies]);
    await this.agent.destroy();
  }

  private async call(method: string, path: string, body?: string, headers: Record<string, string> = {}): Promise<Answer | null> {
    try {
      const res = await request(this.o.url + path, {
        method: method as 'GET',
        dispatcher: this.agent,
        headers: { 'BT-API-KEY': this.o.key, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
        body,
      });
      const text = await res.body.text();
      return { status: res.statusCode, body: text ? JSON.parse(text) : undefined };
    } catch {
      return null;
    }
  }

  /** Records the group by its answer; false when the worker should stop. */
  private settle(group: WriteGroup, answer: Answer | null, expected: number): boolean {
    if (answer?.status === expected) {
      this.o.ledger.acknowledged(group);
      return true;
    }
    this.o.ledger.unansweredGroup(group);
    if (answer) this.o.problems.push(`${group.label}: answered ${answer.status} ${answer.body?.detail ?? ''}`);
    return false;
  }

  private async worker(): Promise<void> {
    const own: string[] = [];
    const { random } = this.o;
    for (;;) {
      const roll = random.next();
      let going: boolean;
      if (roll < 0.35 || own.length === 0) going = (await this.create(own)) !== null;
      else if (roll < 0.5) going = await this.update(random.pick(own));
      else if (roll < 0.58) going = await this.remove(own);
      else if (roll < 0.7) going = await this.tokenize(own);
      else going = await this.transaction();
      if (!going) return;
    }
  }

  /** A direct create; the new id joins `own` (when given) once acknowledged. Null when the worker should stop. */
  private async create(own: string[] | null): Promise<string | null> {
    const id = randomUUID();
    const data = this.o.values.data();
    const group = { label: `create ${id}`, ops: [{ tokenId: id, before: null, after: data }] };
    const answer = await this.call('POST', '/tokens', `{"id":"${id}","type":"token","data":${data}}`);
    if (!this.settle(group, answer, 201)) return null;
    own?.push(id);
    return id;
  }

  private async update(id: string): Promise<boolean> {
    const data = this.o.values.replacement();
    const group = { label: `update ${id}`, ops: [{ tokenId: id, before: this.o.ledger.state(id), after: data }] };
    const answer = await this.call('PATCH', `/tokens/${id}`, `{"data":${data}}`, { 'content-type': 'application/merge-patch+json' });
    return this.settle(group, answer, 200);
  }

  private async remove(own: string[]): Promise<boolean> {
    const id = own.splice(this.o.random.int(0, own.length - 1), 1)[0];
    const group = { label: `delete ${id}`, ops: [{ tokenId: id, before: this.o.ledger.state(id), after: null }] };
    return this.settle(group, await this.call('DELETE', `/tokens/${id}`), 204);
  }

  /** A tokenize batch with chosen ids: its tokens land together or not at all. */
  private tokenizeBatch(): { ops: GroupOp[]; body: string } {
    const ops = Array.from({ length: this.o.random.int(2, 4) }, () => ({ tokenId: randomUUID(), before: null, after: this.o.values.data() }));
    return { ops, body: `[${ops.map((op) => `{"id":"${op.tokenId}","type":"token","data":${op.after}}`).join(',')}]` };
  }

  private async tokenize(own: string[]): Promise<boolean> {
    const { ops, body } = this.tokenizeBatch();
    const group = { label: `tokenize ${ops[0].tokenId}…`, ops };
    if (!this.settle(group, await this.call('POST', '/tokenize', body), 200)) return false;
    own.push(...ops.map((op) => op.tokenId));
    return true;
  }

  /**
   * Two tokens made for it, then one transaction that creates a token, tokenizes a batch, updates one and deletes
   * the other; then it commits (70%), rolls back (20%) or is left open to expire.
   */
  private async transaction(): Promise<boolean> {
    const { ledger, random } = this.o;
    const changed = await this.create(null);
    const deleted = changed && (await this.create(null));
    if (!deleted) return false;
    const opened = await this.call('POST', '/transactions');
    if (opened?.status !== 201) {
      if (opened) this.o.problems.push(`POST /transactions answered ${opened.status}`);
      return false;
    }
    const transaction: UncommittedTransaction = { id: opened.body.id, expiresAt: Date.parse(opened.body.expires_at), rollbackSent: false };
    const group: WriteGroup = { label: `transaction ${transaction.id}`, ops: [] };
    const header = { [TX_HEADER]: transaction.id };
    const created = { tokenId: randomUUID(), before: null, after: this.o.values.data() };
    const batch = this.tokenizeBatch();
    const replacement = this.o.values.replacement();
    const enlist: [GroupOp[], () => Promise<Answer | null>, number][] = [
      [[created], () => this.call('POST', '/tokens', `{"id":"${created.tokenId}","type":"token","data":${created.after}}`, header), 201],
      [batch.ops, () => this.call('POST', '/tokenize', batch.body, header), 200],
      [[{ tokenId: changed, before: ledger.state(changed), after: replacement }], () =>
        this.call('PATCH', `/tokens/${changed}`, `{"data":${replacement}}`, { ...header, 'content-type': 'application/merge-patch+json' }), 200],
      [[{ tokenId: deleted, before: ledger.state(deleted), after: null }], () => this.call('DELETE', `/tokens/${deleted}`, undefined, header), 204],
    ];
    for (const [ops, send, expected] of enlist) {
      group.ops.push(...ops);
      const answer = await send();
      if (answer?.status === expected) continue;
      ledger.notCommitted(group, transaction);
      return this.expiredOr(answer, `enlisting in ${group.label}`);
    }

    const roll = random.next();
    if (roll >= 0.9) {
      ledger.notCommitted(group, transaction);
      return true;
    }
    if (roll >= 0.7) {
      transaction.rollbackSent = true;
      ledger.notCommitted(group, transaction);
      const answer = await this.call('POST', `/transactions/${transaction.id}/rollback`);
      return answer?.status === 200 || this.expiredOr(answer, `rollback of ${group.label}`);
    }
    const committing = this.call('POST', `/transactions/${transaction.id}/commit`);
    this.o.onCommitSent?.();
    const answer = await committing;
    if (answer === null) {
      ledger.unansweredGroup({ ...group, transaction });
      return false;
    }
    if (answer.status === 200) {
      ledger.acknowledged({ ...group, transaction });
      return true;
    }
    ledger.notCommitted(group, transaction);
    return this.expiredOr(answer, `commit of ${group.label}`);
  }

  /**
   * Proxy calls through the destination with a token of its own in the body, each under a path of its own, until one
   * goes unanswered: every answered call wrote a history entry, or had it queued when the kill came.
   */
  private async proxyWorker(): Promise<void> {
    const { proxy } = this.o;
    const answered: string[] = [];
    proxy!.proxied.byWorker.push(answered);
    const token = await this.create(null);
    if (token === null) return;
    const worker = randomUUID();
    for (let n = 0; ; n += 1) {
      const path = `/proxy/crash/${worker}/${n}`;
      const answer = await this.call('POST', path, `{"value":"{{ ${token} }}"}`, { 'BT-PROXY-URL': proxy!.destination });
      if (answer === null) return;
      if (answer.status !== 200) {
        this.o.problems.push(`proxy ${path}: answered ${answer.status} ${answer.body?.proxy_error?.detail ?? ''}`);
        return;
      }
      answered.push(path);
      proxy!.proxied.count += 1;
    }
  }

  /** A transaction that outlived its ttl under load is no fault; anything else is. False when the worker should stop. */
  private expiredOr(answer: Answer | null, what: string): boolean {
    if (answer === null) return false;
    if (answer.status === 409 && /expired/.test(answer.body?.detail ?? '')) return true;
    this.o.problems.push(`${what}: answered ${answer.status} ${answer.body?.detail ?? ''}`);
    return false;
  }
}
