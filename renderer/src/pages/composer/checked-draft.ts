import type { BodyEdit, RequestCheck, RequestCheckQuery } from '../../../../shared/workbench/composer-contract';
import { WorkbenchError } from '../../../../shared/workbench/transport';
import { randomId } from '../../api/random-id';

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;
const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;

/** The change that turns `before` into `after`: the stretch between their common start and common end, never splitting a surrogate pair. */
export function bodyEdit(before: string, after: string, base: number): BodyEdit {
  const shorter = Math.min(before.length, after.length);
  let from = 0;
  while (from < shorter && before.charCodeAt(from) === after.charCodeAt(from)) from++;
  if (from > 0 && isHighSurrogate(before.charCodeAt(from - 1))) from--;
  let kept = 0;
  while (kept < shorter - from && before.charCodeAt(before.length - 1 - kept) === after.charCodeAt(after.length - 1 - kept)) kept++;
  if (kept > 0 && isLowSurrogate(before.charCodeAt(before.length - kept))) kept--;
  return { base, from, to: before.length - kept, insert: after.slice(from, after.length - kept) };
}

/** A request to check with its whole body, as the Composer has it. */
export type WholeCheckQuery = Omit<RequestCheckQuery, 'draft'>;

/**
 * Checks the page's draft again and again, sending each time only the body's change since the last check the engine
 * answered, or the whole body when there is none (the first check, or after a failure other than a body over the
 * limit). Checks must not overlap.
 */
export function draftChecker(checkRequest: (query: RequestCheckQuery) => Promise<RequestCheck>): (query: WholeCheckQuery) => Promise<RequestCheck> {
  const id = randomId();
  let revision = 0;
  /** The body of the last check the engine answered: it keeps that one. */
  let answered: { revision: number; body: string } | null = null;

  return async function check(query) {
    revision += 1;
    const draft = { id, revision };
    const edit = answered !== null && query.body !== null ? bodyEdit(answered.body, query.body, answered.revision) : null;
    try {
      const result = await checkRequest(edit ? { ...query, body: null, draft: { ...draft, edit } } : { ...query, draft });
      answered = query.body === null ? null : { revision: draft.revision, body: query.body };
      return result;
    } catch (error) {
      const status = error instanceof WorkbenchError ? error.problem.status : null;
      // A body over the limit is refused and the engine keeps the one it had: the next change is made to that one.
      if (status === 413) throw error;
      answered = null;
      // The engine no longer holds the body the change was made to (restarted, or too many pages): send it whole.
      if (edit !== null && status === 409) return check(query);
      throw error;
    }
  };
}
