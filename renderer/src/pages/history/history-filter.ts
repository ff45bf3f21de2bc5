import type { HistoryEntry } from '../../../../shared/workbench/contract';
import { statusSourceOf } from '../../components/answer-source';

/** The slices of the history a developer asks for most: what failed, and who failed it. */
export const HISTORY_VIEWS = {
  all: { label: 'All requests', shows: () => true },
  proxy: { label: 'Proxied', shows: (entry: HistoryEntry) => entry.kind === 'proxy' },
  'proxy-errors': {
    label: 'Proxy errors',
    shows: (entry: HistoryEntry) => statusSourceOf(entry) === 'proxy',
  },
  'destination-errors': {
    label: 'Destination errors (4xx/5xx)',
    shows: (entry: HistoryEntry) => statusSourceOf(entry) === 'destination' && entry.status >= 400,
  },
  warnings: { label: 'With compatibility warnings', shows: (entry: HistoryEntry) => (entry.proxy?.warnings.length ?? 0) > 0 },
  failed: { label: 'Any status ≥ 400', shows: (entry: HistoryEntry) => entry.status >= 400 },
  reveals: { label: 'Reveals in the workbench', shows: (entry: HistoryEntry) => entry.kind === 'workbench' },
} as const;

export type HistoryView = keyof typeof HISTORY_VIEWS;

export interface HistoryFilter {
  view: HistoryView;
  /** Matched, case-insensitively, against the method, path, status and trace id. */
  text: string;
}

export function filterHistory(entries: readonly HistoryEntry[], { view, text }: HistoryFilter): HistoryEntry[] {
  const needle = text.trim().toLowerCase();
  const shows = HISTORY_VIEWS[view].shows;
  return entries.filter(
    (entry) =>
      shows(entry) &&
      (needle === '' || [entry.method, entry.path, String(entry.status), entry.trace_id ?? ''].some((field) => field.toLowerCase().includes(needle))),
  );
}
