import { z } from 'zod';
import { ApiProblem } from './problem';
import { parseWith } from './validation';

/*
 * The offset lists of the management routes (`GET /proxies`, `GET /reactors`; vendor-surfaces.md §0): `page` and
 * `size` give the v1 page shape, `start` instead of `page` the v2 cursor shape. The lists are few and held in memory.
 */

/** `page`, `size` and `start` as every offset list takes them; lists read from a store extend it with their filters. */
export const listQuery = z.object({
  page: z.coerce.number().int().min(1).optional(),
  size: z.coerce.number().int().min(1).max(100).default(20),
  start: z.string().optional(),
});

/** A cursor naming a number (an offset, a row's place): opaque to clients. */
export const numberCursor = (n: number): string => Buffer.from(String(n)).toString('base64url');

/** The number a cursor names ('' names 0); 400 naming `start` when it is not one this service returned. */
export function numberOfCursor(start: string): number {
  const n = start === '' ? 0 : Number.parseInt(Buffer.from(start, 'base64url').toString('utf8'), 10);
  if (!Number.isSafeInteger(n) || n < 0) throw new ApiProblem(400, 'start is not a cursor this service returned', { start: ['Unknown cursor'] });
  return n;
}

/** One page of `items` as the query asks for it. */
export function offsetPage<T>(items: readonly T[], query: URLSearchParams) {
  const { page, size, start } = parseWith(listQuery, Object.fromEntries(query));
  if (start !== undefined && page === undefined) {
    // The cursor is the offset of the next page.
    const from = numberOfCursor(start);
    const next = from + size < items.length ? numberCursor(from + size) : null;
    return { pagination: { next, page_size: size }, data: items.slice(from, from + size) };
  }
  const number = page ?? 1;
  return {
    pagination: { total_items: items.length, page_number: number, page_size: size, total_pages: Math.ceil(items.length / size) },
    // A page past the end is empty, never an error: the node SDK pages until it gets one.
    data: items.slice((number - 1) * size, number * size),
  };
}
