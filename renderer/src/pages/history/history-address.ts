import { historyFilterSchema, type HistoryFilter } from '../../../../shared/workbench/history-filter';
import { NO_FILTER } from '../../state/history-store';

/** The filter's fields, as the address writes them (`#/history?view=failed&token_id=…`). */
const FIELDS = Object.keys(historyFilterSchema.shape) as (keyof HistoryFilter)[];

/**
 * The filter an address asks for; a field it cannot read is left out rather than refused (a hand-edited address),
 * and `trace` (the Composer's link to one request) searches for that trace id.
 */
export function filterFromQuery(query: URLSearchParams): HistoryFilter {
  const asked: Record<string, string> = {};
  for (const field of FIELDS) {
    const value = query.get(field);
    if (value !== null && historyFilterSchema.shape[field].safeParse(value).success) asked[field] = value;
  }
  const trace = query.get('trace');
  if (trace && !asked.text) asked.text = trace;
  return historyFilterSchema.parse(asked);
}

/** The address's query for a filter: only the fields that narrow. */
export function queryOfFilter(filter: HistoryFilter): URLSearchParams {
  const query = new URLSearchParams();
  for (const field of FIELDS) {
    const value = filter[field];
    if (value !== undefined && value !== NO_FILTER[field]) query.set(field, value);
  }
  return query;
}

export const sameFilter = (a: HistoryFilter, b: HistoryFilter) => queryOfFilter(a).toString() === queryOfFilter(b).toString();
