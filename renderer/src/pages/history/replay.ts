import type { HistoryEntry } from '../../../../shared/workbench/contract';
import { draftOf } from '../../../../shared/workbench/request-draft';
import { keptPartOnly } from '../../components/BodyView';
import { useApplicationsStore } from '../../state/applications-store';
import { useComposerStore, type ComposerDraft } from '../../state/composer-store';
import { useEngineStore } from '../../state/engine-store';
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

/** The body as History kept it, as text: as sent (proxy bodies keep their expressions), or the recorded JSON. */
function bodyText(body: unknown, notes: string[]): string {
  if (body === undefined || body === null) return '';
  if (typeof body === 'string') return body;
  const kept = body as { text?: unknown; redacted?: unknown };
  if (typeof kept.text === 'string') return kept.text;
  if (kept.text === null) {
    notes.push('The body was not UTF-8 text, which History does not show: write it again.');
    return '';
  }
  if (kept.redacted !== undefined) {
    notes.push('History kept no copy of this body (it held token data): write it again.');
    return '';
  }
  notes.push('Token data in the body is masked as History keeps it: put the values (or expressions) back before sending.');
  return JSON.stringify(body, null, 2);
}

/**
 * Turns a request from History back into the Composer's request, as it was sent: expressions and headers as the
 * client wrote them (never plaintext: History never had it).
 */
export function replayOf(entry: HistoryEntry, prefix: string): Replay {
  const bodyNotes: string[] = [];
  const body = bodyText(entry.request_body, bodyNotes);
  const { draft, notes } = draftOf({ method: entry.method, path: entry.path, headers: entry.request_headers, body }, entry.kind === 'proxy' ? 'proxy' : 'api', prefix);
  return { draft, notes: [...notes, ...bodyNotes], cut: keptPartOnly(entry.request_body) };
}

/**
 * Opens a request from History in the Composer, as the application that sent it when it still exists. A body
 * History cut is replayed only once the user has confirmed (`confirmed`); until then the entry asks.
 */
export function replayInComposer(entry: HistoryEntry, confirmed = false): void {
  const prefix = useEngineStore.getState().status?.headerPrefix ?? 'BT';
  const replay = replayOf(entry, prefix);
  if (replay.cut && !confirmed) return useHistoryStore.getState().confirmReplay(entry.id);
  useHistoryStore.getState().confirmReplay(null);
  const composer = useComposerStore.getState();
  const sender = useApplicationsStore.getState().applications?.find((app) => app.id === entry.application_id);
  if (sender) composer.chooseApplication(sender.id);
  else replay.notes.push('The application that sent it no longer exists (or none was named): pick one under Send as.');
  if (replay.cut) replay.notes.push('History kept only the first 16 KiB of its body: this is that part.');
  composer.load(replay.draft, [`Replayed ${entry.method} ${entry.path} from History.`, ...replay.notes].join(' '));
  openPage('composer');
}
