import type { Request, SentReply } from '../../../shared/workbench/methods';
import type { TokenExpiryFilter } from '../../../shared/workbench/token-contract';
import { normalizeContainer, validateContainer } from '../access/containers';
import { ApiProblem } from '../server/problem';
import { parseSearchQuery, type SearchNode } from '../vault/search-query';
import type { TokenFilter } from '../vault/token-queries';
import { withoutPlaintext } from '../vault/token-service';
import type { StoredToken } from '../vault/token-store';
import { actingAs, requireTransaction, type WorkbenchVault } from './acting-as';
import { stagedTokens } from './staged-tokens';

type Search = Request<'searchTokens'>;

const DAY_MS = 86_400_000;
/** A range with no bound: any expiry at all (`expires_at IS NOT NULL`). */
const EXPIRES: SearchNode = { kind: 'range', field: 'expires_at', fromInclusive: true, toInclusive: true };

/** The expiry quick filter as a node of the search language, so the vault's own query code runs it. */
function expiryNode(expiry: TokenExpiryFilter): SearchNode {
  if (expiry === 'expires') return EXPIRES;
  if (expiry === 'never') return { kind: 'not', child: EXPIRES };
  return { kind: 'range', field: 'expires_at', to: new Date(Date.now() + DAY_MS).toISOString(), fromInclusive: true, toInclusive: true };
}

/** The same test as expiryNode's, for a staged token, which is not in the vault's table yet. */
function expiryMatches(expiry: TokenExpiryFilter, expiresAt: string | null): boolean {
  if (expiry === 'never') return expiresAt === null;
  return expiresAt !== null && (expiry === 'expires' || expiresAt <= new Date(Date.now() + DAY_MS).toISOString());
}

function checkedContainer(container: string): string {
  const problem = validateContainer(container);
  if (problem) throw new ApiProblem(400, `Invalid container filter: ${problem}`, { container: [problem] });
  return normalizeContainer(container);
}

/** Ids of the tokens a transaction created (staged until it commits). */
async function createdIn(vault: WorkbenchVault, transactionId: string): Promise<string[]> {
  const { id } = await requireTransaction(vault, transactionId);
  return (await vault.transactions.store.operations(id))
    .filter((operation) => operation.op === 'create')
    .map((operation) => operation.token_id);
}

/**
 * A page of the Tokens list: the search query in the service's language (with the workbench's card fields and words
 * typed alone) and the quick filters, run by the vault's own query code under the acting application's token:search
 * rules (POST /v2/tokens/search's), newest first, with the total. The first page also carries what open transactions
 * hold that matches the quick filters.
 */
export async function searchTokens(vault: WorkbenchVault, request: Search): Promise<SentReply<'searchTokens'>> {
  const caller = actingAs(vault, request.application_id);
  const query = parseSearchQuery(request.query, 'workbench');
  const container = request.container === undefined ? undefined : checkedContainer(request.container);
  const expiry = request.expiry && expiryNode(request.expiry);
  const filter: TokenFilter = {
    type: request.type,
    container,
    search: query && expiry ? { kind: 'and', children: [query, expiry] } : (query ?? expiry),
  };

  const created = request.transaction_id === undefined ? undefined : await createdIn(vault, request.transaction_id);
  const counted = created === undefined ? filter : { ...filter, ids: created };
  const listed = request.ids === undefined ? counted : { ...filter, ids: created ? request.ids.filter((id) => created.includes(id)) : request.ids };
  // An empty id list filters nothing in the vault's query code: no ids here means no tokens.
  const none = listed.ids?.length === 0;
  const total = created?.length === 0 ? 0 : await vault.queries.count(caller, 'token:search', counted);
  // The count is of the page's own filter unless ids narrow the page further.
  const listedTotal = listed === counted ? total : undefined;
  const page = none ? { next: null, data: [] } : await vault.queries.pageNewest(caller, 'token:search', listed, request.cursor, request.limit, listedTotal);

  const firstPage = request.cursor === undefined && request.ids === undefined;
  const staged = firstPage ? await stagedTokens(vault.transactions, (id) => vault.tokens.store.get(id), request.transaction_id) : [];
  const matches = (token: StoredToken) =>
    (request.type === undefined || token.type === request.type) &&
    (container === undefined || token.containers.some((c) => c.startsWith(container))) &&
    (request.expiry === undefined || expiryMatches(request.expiry, token.expires_at));
  const shown = query ? [] : staged.filter(({ token }) => matches(token));
  return {
    total,
    next: page.next,
    tokens: page.data,
    staged: shown.flatMap(({ token, transaction_id, operation }) => {
      const transform = caller.policy.transformFor('token:search', token.containers);
      return transform === null ? [] : [{ token: vault.tokens.view(token, withoutPlaintext(transform)), staged: { transaction_id, operation } }];
    }),
    staged_unsearched: query ? staged.length : 0,
    unindexed: vault.tokens.store.backlog.unindexed,
  };
}
