import type { SentHistoryEntry } from '../../../shared/workbench/history-contract';
import { historyFilterSchema } from '../../../shared/workbench/history-filter';
import type { EngineEvents } from '../engine-events';
import type { RequestLog } from '../history/request-log';

/** How long to wait for an entry not yet recorded, as the front door waits for a sent request's. */
const ENTRY_WAIT_MS = 2000;

/**
 * The History entry of the request traced `traceId`: kept already, or heard as it is recorded (an asynchronous react's
 * is recorded as its run ends, which may come just after its result is kept); null when it does not come in time.
 */
export async function recordedEntry(history: RequestLog, events: EngineEvents, traceId: string): Promise<SentHistoryEntry | null> {
  let heard: (entry: SentHistoryEntry) => void = () => undefined;
  let timer: NodeJS.Timeout | undefined;
  const arriving = new Promise<SentHistoryEntry | null>((resolve) => {
    timer = setTimeout(() => resolve(null), ENTRY_WAIT_MS);
    heard = (entry) => {
      if (entry.trace_id === traceId) resolve(entry);
    };
  });
  // Listening first: an entry recorded while the history is read is heard.
  events.on('request', heard);
  try {
    const [kept] = await history.list(1, undefined, historyFilterSchema.parse({ text: traceId }));
    return kept?.trace_id === traceId ? kept : await arriving;
  } finally {
    clearTimeout(timer);
    events.off('request', heard);
  }
}
