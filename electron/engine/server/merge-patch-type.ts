import { ApiProblem } from './problem';
import type { RequestContext } from './route-types';

/**
 * PATCH of a management resource takes an RFC 7386 merge patch, said so by its Content-Type (a parameter such as
 * `; charset=utf-8` is allowed); anything else is a 415 (vendor-surfaces.md §0).
 */
export function requireMergePatchType(ctx: RequestContext, route: string): void {
  const type = ctx.req.headers['content-type']?.split(';')[0].trim().toLowerCase();
  if (type !== 'application/merge-patch+json') throw new ApiProblem(415, `PATCH ${route} takes Content-Type: application/merge-patch+json`);
}
