import { z } from 'zod';
import { managed } from '../access/managed-route';
import type { RequestLog } from '../history/request-log';
import { listQuery, numberCursor, numberOfCursor } from '../server/offset-page';
import type { Route } from '../server/route-types';
import { parseWith } from '../server/validation';
import { ENTITY_TYPES } from './entity-activity';
import type { LogLine } from './log-store';

/** An ISO 8601 date (`2030-01-01`) or date and time, as the UTC instant it names. */
const instant = z.string().transform((text, ctx) => {
  const ms = /^\d{4}-\d{2}-\d{2}([T ]|$)/.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(ms)) {
    ctx.issues.push({ code: 'custom', message: 'Not an ISO 8601 date, such as 2030-01-31T00:00:00Z', input: text });
    return z.NEVER;
  }
  return new Date(ms).toISOString();
});

const logsQuery = listQuery.extend({
  entity_type: z
    .string()
    .max(50)
    .refine((type) => Object.hasOwn(ENTITY_TYPES, type), { error: `Not an entity type; GET /logs/entity-types lists them (${Object.keys(ENTITY_TYPES).join(', ')})` })
    .optional(),
  entity_id: z.string().max(200).optional(),
  start_date: instant.optional(),
  end_date: instant.optional(),
});

/**
 * `GET /logs` and `GET /logs/entity-types` (docs/api.md, Logs), for management applications holding log:read: the
 * lines the history's worker keeps, newest first, by offset pages or, given `start`, by cursor.
 */
export function logRoutes(history: RequestLog, tenantId: string): Route[] {
  const shown = (line: LogLine) => ({
    id: line.id,
    tenant_id: tenantId,
    actor_id: line.actor_id,
    actor_type: line.actor_type ?? (line.actor_id === null ? null : 'application'),
    entity_type: line.entity_type,
    entity_id: line.entity_id,
    operation: line.operation,
    message: line.message,
    created_at: line.created_at,
  });
  return [
    {
      method: 'GET',
      path: '/logs',
      handler: managed('log:read', async (ctx) => {
        const { page, size, start, entity_type, entity_id, start_date, end_date } = parseWith(logsQuery, Object.fromEntries(ctx.query()));
        const filter = { entity_type, entity_id, start: start_date, end: end_date, size };
        if (start !== undefined && page === undefined) {
          // The cursor is the place of the page's last line; '' starts from the newest.
          const after = start === '' ? undefined : numberOfCursor(start);
          const { lines, more } = await history.logs({ ...filter, after });
          const last = lines.at(-1);
          return { status: 200, body: { pagination: { next: more && last ? numberCursor(last.seq) : null, page_size: size }, data: lines.map(shown) } };
        }
        const number = page ?? 1;
        const { lines, total = 0 } = await history.logs({ ...filter, page: number });
        const pagination = { total_items: total, page_number: number, page_size: size, total_pages: Math.ceil(total / size) };
        return { status: 200, body: { pagination, data: lines.map(shown) } };
      }),
    },
    {
      method: 'GET',
      path: '/logs/entity-types',
      handler: managed('log:read', () => ({
        status: 200,
        body: Object.entries(ENTITY_TYPES).map(([value, display_name]) => ({ display_name, value })),
      })),
    },
  ];
}
