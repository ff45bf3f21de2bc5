import { create } from 'zustand';
import type { WorkbenchApi } from '../../../shared/workbench/methods';
import type { TokenDetail } from '../../../shared/workbench/token-contract';
import { messageOf } from '../api/engine-call';

/** The token the Tokens page's detail shows, as which application, in which transaction (null: outside any). */
export interface TokenDetailQuery {
  applicationId: string;
  id: string;
  stagedIn: string | null;
}

interface TokenDetailState {
  /** The last answer for `of`: the token, or why it could not be read; null while a first read is under way. */
  read: { detail: TokenDetail } | { problem: string } | null;
  /** Which query `read` answers, so another token's answer is never shown for this one. */
  of: string | null;
}

const useTokenDetailStore = create<TokenDetailState>()(() => ({ read: null, of: null }));

const keyOf = ({ applicationId, id, stagedIn }: TokenDetailQuery) => JSON.stringify([applicationId, id, stagedIn]);
let lastAsked = 0;

/**
 * Reads the token again (on opening it, when the live road says it changed, after an edit). Reading the same token
 * keeps its last answer on screen until the new one comes; an answer overtaken by a later read is dropped.
 */
export async function readTokenDetail(api: WorkbenchApi, query: TokenDetailQuery): Promise<void> {
  const asked = ++lastAsked;
  const of = keyOf(query);
  if (useTokenDetailStore.getState().of !== of) useTokenDetailStore.setState({ read: null, of });
  const request = { application_id: query.applicationId, token_id: query.id, ...(query.stagedIn && { transaction_id: query.stagedIn }) };
  const read = await api.getToken(request).then(
    (detail) => ({ detail }),
    (error: unknown) => ({ problem: messageOf(error) }),
  );
  if (asked === lastAsked) useTokenDetailStore.setState({ read, of });
}

/** The last answer for this token, application and transaction; null until one comes (never another token's). */
export function useTokenDetail(query: TokenDetailQuery | null): TokenDetailState['read'] {
  const of = query && keyOf(query);
  return useTokenDetailStore((state) => (state.of === of ? state.read : null));
}
