/*
 * Which history entries a filter keeps: no schema here, so the history's worker thread, which runs it over every kept
 * entry, loads no validation library for it.
 */
import type { HistoryFilter, HistoryView } from './history-filter';
import { workbenchLabel } from './pages';

/** What the filter reads of a history entry (the contract's entry has these fields, and more). */
export interface FilterableEntry {
  kind: string;
  at: string;
  method: string;
  path: string;
  status: number;
  application_id: string | null;
  workbench_page?: string | null;
  workbench_person?: { name: string };
  trace_id: string | null;
  transaction_id?: string | null;
  details?: unknown;
}

/** What the filter reads of a proxy entry's details, whatever shape an older version wrote them in. */
interface ProxyFacts {
  status_source?: unknown;
  warnings?: unknown;
  expressions?: { token_ids?: unknown };
}

/** A workbench change's or reveal's sentence ("Deleted application “Checkout”"), which names what a path gives only by id. */
const summaryOf = (entry: FilterableEntry): string => {
  if (entry.kind !== 'workbench' || typeof entry.details !== 'object' || entry.details === null) return '';
  const { change, reveal } = entry.details as { change?: { summary?: unknown }; reveal?: { summary?: unknown } };
  const summary = change?.summary ?? reveal?.summary;
  return typeof summary === 'string' ? summary : '';
};

/** Whether this workbench sent the request (from one of its pages, or naming none) or made the change itself. */
export const sentByWorkbench = (entry: Pick<FilterableEntry, 'kind' | 'workbench_page'>): boolean =>
  entry.workbench_page !== undefined || entry.kind === 'workbench';

const isProxyError = (entry: FilterableEntry, facts: ProxyFacts) => entry.kind === 'proxy' && facts.status_source !== 'destination';

const VIEW_TESTS: Record<HistoryView, (entry: FilterableEntry, facts: ProxyFacts) => boolean> = {
  all: () => true,
  proxy: (entry) => entry.kind === 'proxy',
  'proxy-errors': isProxyError,
  'destination-errors': (entry, facts) => entry.kind === 'proxy' && facts.status_source === 'destination' && entry.status >= 400,
  warnings: (_entry, facts) => Array.isArray(facts.warnings) && facts.warnings.length > 0,
  failed: (entry) => entry.status >= 400,
  reveals: (entry) => entry.kind === 'workbench' && entry.method === 'REVEAL',
  changes: (entry) => entry.kind === 'workbench' && entry.method !== 'REVEAL',
};

/** Whether a filter narrows anything: an empty one lists every entry, the cheap way. */
export function filtersAnything(filter: HistoryFilter): boolean {
  return filter.view !== 'all' || filter.text.trim() !== '' || Object.entries(filter).some(([key, value]) => key !== 'view' && key !== 'text' && value !== undefined);
}

/**
 * One test for both sides: the engine's history thread runs it over every kept entry, and the page over the entries
 * that arrive live while a filter is on, so the two never disagree.
 */
export function matchesHistoryFilter(entry: FilterableEntry, filter: HistoryFilter): boolean {
  const facts = entry.kind === 'proxy' && typeof entry.details === 'object' && entry.details !== null ? (entry.details as ProxyFacts) : {};
  if (!VIEW_TESTS[filter.view](entry, facts)) return false;
  if (filter.sender !== undefined && sentByWorkbench(entry) !== (filter.sender === 'workbench')) return false;
  if (filter.application_id !== undefined && entry.application_id !== filter.application_id) return false;
  if (filter.transaction_id !== undefined && entry.transaction_id !== filter.transaction_id) return false;
  if (filter.since !== undefined && Date.parse(entry.at) < Date.parse(filter.since)) return false;
  if (filter.until !== undefined && Date.parse(entry.at) >= Date.parse(filter.until)) return false;
  if (filter.token_id !== undefined) {
    const used = facts.expressions?.token_ids;
    const inPath = entry.path.split(/[/?&=]/).includes(filter.token_id);
    if (!inPath && !(Array.isArray(used) && used.includes(filter.token_id))) return false;
  }
  const needle = filter.text.trim().toLowerCase();
  const sender = entry.workbench_page === undefined ? '' : workbenchLabel(entry.workbench_page);
  return needle === '' || [entry.method, entry.path, String(entry.status), entry.trace_id ?? '', sender, entry.workbench_person?.name ?? '', summaryOf(entry)].some((field) => field.toLowerCase().includes(needle));
}
