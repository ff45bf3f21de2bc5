import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { Caller } from '../access/authenticator';
import type { EventCause, EventOutbox } from '../events/event-outbox';
import { ApiProblem, validationProblem } from '../server/problem';
import { cardDetails, isCardType, type CardDetails } from '../vault/card-details';
import { goneIntentDetail, type IntentSource, type LiveIntent } from '../vault/intent-source';
import type { TokenService } from '../vault/token-service';
import { validateTokenData, type TokenType } from '../vault/token-types';
import type { CreateIntentRequest } from './intent-requests';
import { type IntentDetails, type IntentStore, type IntentSummary, type StoredIntent, takingIntent } from './intent-store';
import { type Answer, answerOf, type AnyUnitRunner, type Unit, type UnitRunner } from '../storage/unit';

/** A token intent as every route shows it: never its data (vendor-surfaces.md §4.3). */
export interface IntentView {
  id: string;
  tenant_id: string;
  type: string;
  card: CardDetails | null;
  bank: { routing_number: string; account_number_last4: string } | null;
  network_token: null;
  authentication: null;
  fingerprint: string | null;
  created_by: string;
  created_at: string;
  expires_at: string;
  _extras: { network_token_ids: string[] };
}

/** What the live feed hears of an intent: its id and what happened to it, never its data. */
export interface IntentChange {
  id: string;
  change: 'created' | 'converted' | 'deleted';
}

/** The most intents the workbench's list holds. */
const LISTED_INTENTS = 500;

/** The summary a GET shows: the card derivation tokens use, or a bank account's routing number and last 4. */
function detailsOf(type: TokenType, data: unknown): IntentDetails {
  if (isCardType(type)) {
    const card = cardDetails(data);
    return card ? { card: { ...card } } : {};
  }
  if (type === 'bank') {
    const { routing_number, account_number } = data as { routing_number: string; account_number: string };
    return { bank: { routing_number, account_number_last4: account_number.slice(-4) } };
  }
  return {};
}

/**
 * Token intents (docs/api.md, Token intents): short-lived data a browser collects with a public key, which a back end
 * converts into a token (POST /tokens, /tokenize) or sends through a proxy. The vault reads them through IntentSource.
 * Over runner `R`, its store's: a create, a delete and the live intents answer at once over SQLite, a Promise over
 * PostgreSQL.
 */
export class TokenIntents<R extends AnyUnitRunner = UnitRunner> extends EventEmitter<{ change: [IntentChange] }> implements IntentSource {
  constructor(
    private readonly store: IntentStore<R>,
    private readonly tokens: Pick<TokenService<AnyUnitRunner>, 'intentFingerprint'>,
    private readonly tenantId: string,
    /** The time to live of a new intent, in seconds (a setting: read at each create). */
    private readonly ttlSeconds: () => number,
    private readonly outbox: EventOutbox,
  ) {
    super();
  }

  create(input: CreateIntentRequest, caller: Caller, cause: EventCause): Answer<R, IntentView> {
    caller.policy.requireHeld('token-intent:create');
    if (input.type === 'network_token') {
      throw new ApiProblem(422, 'network_token intents are not available: Tokenbench has no network tokens');
    }
    const errors = validateTokenData(input.type, input.data);
    if (Object.keys(errors).length > 0) throw validationProblem(errors);
    const type = input.type as TokenType;
    const now = Date.now();
    const live: LiveIntent = {
      id: randomUUID(),
      type,
      data: input.data,
      created_by: caller.application.id,
      created_at: new Date(now).toISOString(),
      expires_at: new Date(now + this.ttlSeconds() * 1000).toISOString(),
    };
    const intent: StoredIntent = { ...live, fingerprint: this.tokens.intentFingerprint(live), details: detailsOf(type, input.data) };
    const { id, fingerprint, created_by, created_at, expires_at } = intent;
    const inserting = this.store.inserting(intent);
    const { outbox } = this;
    const stored = this.store.units.run(function* () {
      yield* inserting();
      yield* outbox.store({ type: 'token-intent.created', data: () => ({ token_intent: { id, type, fingerprint, created_by, created_at, expires_at } }), ...cause });
    });
    return answerOf<R, void, IntentView>(stored, () => {
      outbox.committed();
      this.emit('change', { id: intent.id, change: 'created' });
      return this.view(intent);
    });
  }

  async get(id: string, caller: Caller): Promise<IntentView> {
    caller.policy.requireHeld('token-intent:read');
    return this.view(await this.require(id));
  }

  delete(id: string, caller: Caller, cause: EventCause): Answer<R, void> {
    caller.policy.requireHeld('token-intent:delete');
    const { store, outbox } = this;
    const deleted = store.units.run(function* () {
      if (!(yield* store.deleting(id))) return false;
      yield* outbox.store({ type: 'token-intent.deleted', data: () => ({ token_intent: { id } }), ...cause });
      return true;
    });
    return answerOf<R, boolean, void>(deleted, (found) => {
      if (!found) throw this.notFound(id);
      outbox.committed();
      this.emit('change', { id, change: 'deleted' });
    });
  }

  /** The workbench's list: the newest live intents, without data (no API route lists them). */
  async list(limit = LISTED_INTENTS): Promise<{ intents: IntentView[]; more: boolean }> {
    const newest = await this.store.newest(limit + 1);
    return { intents: newest.slice(0, limit).map((intent) => this.view(intent)), more: newest.length > limit };
  }

  liveMany(ids: readonly string[]): Answer<R, LiveIntent[]> {
    return this.store.getMany(ids);
  }

  *consuming(ids: readonly string[], transactionId: string | undefined): Unit<void> {
    for (const id of ids) if (!(yield* takingIntent(id, transactionId?.toLowerCase()))) throw new ApiProblem(400, goneIntentDetail(id));
  }

  consumed(ids: readonly string[]): void {
    for (const id of ids) this.emit('change', { id, change: 'converted' });
  }

  private async require(id: string): Promise<IntentSummary> {
    const intent = await this.store.get(id);
    if (!intent) throw this.notFound(id);
    return intent;
  }

  private notFound(id: string): ApiProblem {
    return new ApiProblem(404, `Token intent ${id} not found: it expired, was converted, or was deleted`);
  }

  private view(intent: IntentSummary): IntentView {
    const { details } = intent;
    return {
      id: intent.id,
      tenant_id: this.tenantId,
      type: intent.type,
      card: 'card' in details ? details.card : null,
      bank: 'bank' in details ? details.bank : null,
      network_token: null,
      authentication: null,
      fingerprint: intent.fingerprint,
      created_by: intent.created_by,
      created_at: intent.created_at,
      expires_at: intent.expires_at,
      _extras: { network_token_ids: [] },
    };
  }
}
