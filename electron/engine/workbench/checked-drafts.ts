import type { BodyEdit, RequestToCheck, RequestCheckQuery } from '../../../shared/workbench/composer-contract';
import { LruCache } from '../lru-cache';
import { ApiProblem } from '../server/problem';

/** Drafts kept at once: a page keeps one, so this is pages open at once (each body up to the workbench's 1 MB call). */
const DRAFTS_KEPT = 8;

interface KeptBody {
  revision: number;
  body: string | null;
}

/**
 * The body each page's draft had at its last check, so the next check can send only what changed (its draft's
 * `edit`). Kept in memory only, and forgotten when the engine stops or more pages check than are kept.
 */
export class CheckedDrafts {
  private readonly kept = new LruCache<string, KeptBody>(DRAFTS_KEPT);

  /** The request with its whole body, the draft's edit applied; the body is kept as the draft's revision. */
  resolve({ draft, ...request }: RequestCheckQuery): RequestToCheck {
    if (draft === undefined) return request;
    const body = draft.edit ? this.applyEdit(draft.id, draft.edit) : request.body;
    this.kept.delete(draft.id);
    this.kept.add(draft.id, { revision: draft.revision, body });
    return { ...request, body };
  }

  private applyEdit(id: string, { base, from, to, insert }: BodyEdit): string {
    const kept = this.kept.get(id);
    if (kept?.revision !== base || kept.body === null) {
      throw new ApiProblem(409, `The engine no longer holds revision ${base} of draft ${id}: send the whole body.`);
    }
    if (to > kept.body.length) throw new ApiProblem(400, `The edit ends at ${to}, after the end of the body (${kept.body.length})`);
    return kept.body.slice(0, from) + insert + kept.body.slice(to);
  }
}
