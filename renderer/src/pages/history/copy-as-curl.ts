import type { HistoryEntry } from '../../../../shared/workbench/history-contract';
import { CLIENT_WRITTEN_HEADERS } from '../../../../shared/workbench/request-draft';
import { receivedUrl } from '../../../../shared/workbench/received-url';
import { curlSnippet } from '../../../../shared/snippets/request-snippet';
import { keptPartOnly } from '../../components/BodyView';
import { keptBodyText } from './kept-body';

/** A request from History as a cURL command to run again, and what the user must know before running it. */
export interface CopiedCurl {
  command: string;
  notes: string[];
}

/**
 * The request as the client sent it to the service, written as a cURL command: the same method, path, headers and
 * body as History kept them, the key read from $BT_API_KEY (History keeps only its last four characters).
 */
export function curlOf(entry: HistoryEntry, serviceUrl: string, prefix: string): CopiedCurl {
  const notes: string[] = [];
  const keyHeader = `${prefix}-API-KEY`;
  const headers = entry.request_headers.filter(([name]) => !CLIENT_WRITTEN_HEADERS.has(name.toLowerCase()) && name.toLowerCase() !== keyHeader.toLowerCase());
  const body = keptBodyText(entry.request_body, notes);
  if (keptPartOnly(entry.request_body)) notes.push('History kept only the first 16 KiB of its body: the command sends that part.');
  const command = curlSnippet({ method: entry.method, url: receivedUrl(serviceUrl, entry.path), headers, body: body === '' ? null : body }, { header: keyHeader, value: null });
  return { command, notes };
}
