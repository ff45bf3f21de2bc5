import type { HistoryEntry } from '../../../../shared/workbench/history-contract';
import { draftOf } from '../../../../shared/workbench/request-draft';
import { receivedTarget } from '../../../../shared/workbench/received-url';
import { keptPartOnly } from '../../components/BodyView';
import { keptBodyText } from './kept-body';
import { useApplicationsStore } from '../../state/applications-store';
import { useComposerStore, type ComposerDraft } from '../../state/composer-store';
import { headerPrefix } from '../../state/engine-store';
import { useHistoryStore } from '../../state/history-store';
import { openPage } from '../../state/route';

/** A history entry as the Composer takes it back, and what the user must know before sending it again. */
export interface Replay {
  draft: ComposerDraft;
  /** Said in the Composer: what could not come back as it was sent. */
  notes: string[];
  /** History kept only the first 16 KiB of the body: sending this replays a part, so it asks first. */
  cut: boolean;
}

/**
 * Turns a request from History back into the Composer's request, as it was sent: expressions and headers as the
 * client wrote them (never plaintext: History never had it).
 */
export function replayOf(entry: HistoryEntry, prefix: string): Replay {
  const bodyNotes: string[] = [];
  const body = keptBodyText(entry.request_body, bodyNotes);
  const { draft, notes } = draftOf({ method: entry.method, path: receivedTarget(entry.path), headers: entry.request_headers, body }, entry.kind === 'proxy' ? 'proxy' : 'api', prefix);
  return { draft, notes: [...notes, ...bodyNotes], cut: keptPartOnly(entry.request_body) };
}

/** Whether an entry was a request at all: the workbench's own reveals and changes were not, so none replays. */
export const replayable = (entry: HistoryEntry): boolean => entry.kind !== 'workbench';

/**
 * Opens a request from History in the Composer, as the application that sent it when it still exists. A body
 * History cut is replayed only once the user has confirmed (`confirmed`); until then the entry asks.
 */
export function replayInComposer(entry: HistoryEntry, confirmed = false): void {
  const prefix = headerPrefix();
  const replay = replayOf(entry, prefix);
  if (replay.cut && !confirmed) return useHistoryStore.getState().confirmReplay(entry.id);
  useHistoryStore.getState().confirmReplay(null);
  const composer = useComposerStore.getState();
  const sender = useApplicationsStore.getState().value?.find((app) => app.id === entry.application_id);
  if (sender) composer.chooseApplication(sender.id);
  else replay.notes.push('The application that sent it no longer exists (or none was named): pick one under Send as.');
  if (replay.cut) replay.notes.push('History kept only the first 16 KiB of its body: this is that part.');
  composer.load(replay.draft, [`Replayed ${entry.method} ${entry.path} from History.`, ...replay.notes].join(' '));
  openPage('composer');
}
