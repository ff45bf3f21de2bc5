import type { HistoryEntry } from '../../../../shared/workbench/history-contract';
import { sentByWorkbench } from '../../../../shared/workbench/history-match';
import { workbenchLabel } from '../../../../shared/workbench/pages';

/**
 * Who sent a request, as History names it: the named person who used the workbench (none for its owner), the page it
 * was sent from (or the workbench itself) and the application it acted as, e.g. "alice · Tokens page · Backend"; a
 * request from any other client names the application only.
 */
export function senderOf(entry: HistoryEntry, applicationName: (id: string) => string): string {
  const parts: string[] = [];
  if (entry.workbench_person) parts.push(entry.workbench_person.name);
  if (sentByWorkbench(entry)) parts.push(workbenchLabel(entry.workbench_page ?? null));
  if (entry.application_id !== null) parts.push(applicationName(entry.application_id));
  return parts.length > 0 ? parts.join(' · ') : 'No application';
}
