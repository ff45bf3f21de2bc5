import type { HistoryFilter, HistorySender, HistoryView } from '../../../../shared/workbench/history-filter';

/** Each view as the Show menu offers it, and as the active filters' sentence names what it shows. */
export const VIEWS: Record<HistoryView, { label: string; shows: string }> = {
  all: { label: 'All requests', shows: 'requests' },
  proxy: { label: 'Proxied', shows: 'proxied requests' },
  'proxy-errors': { label: 'Proxy errors', shows: 'proxy errors' },
  'destination-errors': { label: 'Destination errors (4xx/5xx)', shows: 'destination errors (4xx/5xx)' },
  warnings: { label: 'With compatibility warnings', shows: 'requests with compatibility warnings' },
  failed: { label: 'Any status ≥ 400', shows: 'requests answered with a status ≥ 400' },
  reveals: { label: 'Reveals in the workbench', shows: 'reveals in the workbench' },
  changes: { label: 'Changes made in the workbench', shows: 'changes made in the workbench' },
};

/** Each sender as the Sent by menu offers it, and as the sentence names it. */
export const SENDERS: Record<HistorySender, { label: string; phrase: string }> = {
  outside: { label: 'Outside clients', phrase: 'outside clients' },
  workbench: { label: 'This workbench', phrase: 'this workbench' },
};

/**
 * The filter on screen in one sentence ("Showing proxy errors sent by outside clients, matching “charge”"), so what
 * the list and an export hold is said even where a control is folded away; empty when nothing narrows.
 */
export function filterSentence(filter: HistoryFilter, applicationName: (id: string) => string): string {
  const sender = filter.sender && `by ${SENDERS[filter.sender].phrase}`;
  const as = filter.application_id !== undefined && `as ${applicationName(filter.application_id)}`;
  const text = filter.text.trim();
  const parts = [
    (sender || as) && `sent ${[sender, as].filter(Boolean).join(' ')}`,
    text && `matching “${text}”`,
    filter.transaction_id !== undefined && `in transaction ${filter.transaction_id}`,
    filter.token_id !== undefined && `using token ${filter.token_id}`,
    filter.since !== undefined && `from ${new Date(filter.since).toLocaleString()}`,
    filter.until !== undefined && `until ${new Date(filter.until).toLocaleString()}`,
  ].filter((part): part is string => typeof part === 'string' && part !== '');
  if (filter.view === 'all' && parts.length === 0) return '';
  return `Showing ${[VIEWS[filter.view].shows, parts.join(', ')].filter(Boolean).join(' ')}`;
}
