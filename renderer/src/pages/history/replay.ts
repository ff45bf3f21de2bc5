import { COMPOSER_METHODS, type HistoryEntry } from '../../../../shared/workbench/contract';
import { keptPartOnly } from '../../components/BodyView';
import { useApplicationsStore } from '../../state/applications-store';
import {
  EMPTY_DRAFT,
  useComposerStore,
  type BodyMode,
  type ComposerDraft,
  type ComposerMethod,
  type HeaderRow,
  type ServiceHeader,
} from '../../state/composer-store';
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

/** Headers a client's HTTP library writes by itself, and the key (the Composer adds the application's). */
const LEFT_OUT = new Set(['host', 'content-length', 'connection', 'transfer-encoding', 'keep-alive', 'expect']);

/** The body modes by the media type a request named. */
const MODES: [RegExp, BodyMode][] = [
  [/json/i, 'json'],
  [/x-www-form-urlencoded/i, 'form'],
  [/xml/i, 'xml'],
  [/^text\//i, 'text'],
];

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
 * client wrote them (never plaintext: History never had it), the service's headers into their named fields, the
 * key left out (the Composer sends as an application).
 */
export function replayOf(entry: HistoryEntry, prefix: string): Replay {
  const notes: string[] = [];
  const lower = prefix.toLowerCase();
  const service: Record<ServiceHeader, string> = { ...EMPTY_DRAFT.service };
  const fields: Record<string, ServiceHeader> = {
    [`${lower}-transaction-id`]: 'transaction',
    [`${lower}-proxy-keep-alive`]: 'keepAlive',
    [`${lower}-proxy-connection`]: 'connection',
  };
  let proxyUrl: string | null = null;
  let contentType: string | null = null;
  const headers: HeaderRow[] = [];
  for (const [name, value] of entry.request_headers) {
    const key = name.toLowerCase();
    if (LEFT_OUT.has(key) || key === `${lower}-api-key` || key === `${lower}-trace-id`) continue;
    if (key === `${lower}-proxy-url`) proxyUrl = value;
    else if (key in fields) service[fields[key]] = value;
    else if (key === 'content-type' && contentType === null) contentType = value;
    else headers.push({ name, value, enabled: true });
  }
  const mode = contentType === null ? 'json' : (MODES.find(([pattern]) => pattern.test(contentType))?.[1] ?? 'text');
  if (contentType !== null && mode === 'text' && !/^text\/plain/i.test(contentType)) headers.push({ name: 'Content-Type', value: contentType, enabled: true });

  const proxied = entry.kind === 'proxy';
  const target = proxied ? `${(proxyUrl ?? '').replace(/\/$/, '')}${entry.path.replace(/^\/proxy/, '')}` : entry.path;
  if (proxied && proxyUrl === null) notes.push(`The request named no ${prefix}-PROXY-URL: write the destination URL.`);
  const method = (COMPOSER_METHODS as readonly string[]).includes(entry.method) ? (entry.method as ComposerMethod) : 'GET';
  if (method !== entry.method) notes.push(`${entry.method} is not a method the Composer sends: it is GET now.`);
  const body = bodyText(entry.request_body, notes);
  return {
    draft: { kind: proxied ? 'proxy' : 'api', method, target, headers, service, bodyMode: body === '' && method === 'GET' ? 'none' : mode, body },
    notes,
    cut: keptPartOnly(entry.request_body),
  };
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
