import type { HistoryEntry } from '../../../shared/workbench/history-contract';

/** The word for each source, the same in the history list and the entry panel. */
export const SOURCE_LABELS = { destination: 'destination', proxy: 'proxy error', api: 'api', workbench: 'workbench' } as const;

/**
 * Who chose the status the client got: the destination (relayed), the proxy itself, or a vault API route; or, for
 * the workbench's own reveals and changes, the workbench.
 */
export function statusSourceOf(entry: HistoryEntry): AnswerSource['source'] {
  if (entry.kind === 'workbench') return 'workbench';
  if (entry.kind !== 'proxy') return 'api';
  return entry.proxy?.status_source === 'destination' ? 'destination' : 'proxy';
}

/** Who gave the client its status, in the words the workbench shows. */
export interface AnswerSource {
  /**
   * destination: the destination's own answer, relayed; proxy: Tokenbench's `{"proxy_error": …}`; api: not proxied;
   * workbench: the user revealed plaintext, or changed the vault or its settings, in the workbench.
   */
  source: 'destination' | 'proxy' | 'api' | 'workbench';
  title: string;
  explanation: string;
}

/** What became of the request when the proxy failed: it matters whether the destination ever saw it. */
function proxyFailureExplanation(kind: string | null, forwarded: boolean): string {
  if (kind === 'timeout') return 'The request was forwarded, but the destination did not answer within the proxy timeout.';
  if (kind === 'unreachable') return 'The destination could not be reached: nothing it would have said is in this answer.';
  if (kind === 'bad_response') return 'The destination answered with something that is not valid HTTP.';
  if (kind === 'aborted') return 'The client went away before the exchange finished.';
  return forwarded ? 'The proxy failed after forwarding the request.' : 'The request never left Tokenbench: the destination did not receive it.';
}

/**
 * The split the response viewer makes unmistakable: a status the destination chose (relayed with
 * PFX-PROXY-DESTINATION-STATUS) or one the proxy chose itself (`{"proxy_error": …}`, no such header).
 */
/** What an entry older than the reveal's own sentence revealed, said as that sentence would. */
function olderRevealSummary(entry: HistoryEntry): string {
  const done = entry.status < 400 ? 'Revealed' : 'Could not reveal';
  const { reveal } = entry;
  if (reveal?.target === 'token') return `${done} the data of token ${reveal.token_id}`;
  if (reveal?.target === 'outbound') {
    return `${done} the body request ${reveal.entry_id} sent to its destination${reveal.token_ids.length > 0 ? ` (tokens ${reveal.token_ids.join(', ')})` : ''}`;
  }
  if (reveal?.target === 'secret') return `${done} the value of secret “${reveal.name}”`;
  return `${done} a value`;
}

/** A workbench reveal: what was revealed, by id (a key by its last four); history never keeps the value. */
function revealAnswer(entry: HistoryEntry): AnswerSource {
  const summary = entry.reveal?.summary ?? olderRevealSummary(entry);
  const done = entry.status < 400;
  return {
    source: 'workbench',
    title: done ? 'Revealed in the workbench' : `Reveal failed: ${entry.status}`,
    explanation: `${summary}, at the user's request${done ? '' : ': nothing was shown'}. History keeps what was revealed, never the value.`,
  };
}

/** A change the workbench made in the vault or its settings: what, in the engine's words; no request was sent. */
function changeAnswer(entry: HistoryEntry): AnswerSource {
  const summary = entry.change?.summary ?? 'A change';
  if (entry.status >= 400) {
    return {
      source: 'workbench',
      title: `Change failed: ${entry.status}`,
      explanation: `${summary}. The workbench tried this change itself, at its user's request, and it was refused: nothing was changed.`,
    };
  }
  return {
    source: 'workbench',
    title: 'Changed in the workbench',
    explanation: `${summary}. The workbench made this change itself, at its user's request: no request was sent, and no key was used.`,
  };
}

export function answerSourceOf(entry: HistoryEntry, headerPrefix: string): AnswerSource {
  const source = statusSourceOf(entry);
  if (source === 'workbench') return entry.method === 'REVEAL' ? revealAnswer(entry) : changeAnswer(entry);
  if (source === 'api') {
    return { source, title: `API answered ${entry.status}`, explanation: 'A call to the vault API; nothing was proxied.' };
  }
  const details = entry.proxy;
  const statusHeader = `${headerPrefix}-PROXY-DESTINATION-STATUS`;
  if (source === 'destination' && details?.response) {
    const { status } = details.response;
    if (details.failure) {
      return {
        source: 'destination',
        title: `Destination answered ${status}, then its response broke off`,
        explanation: `${details.failure.detail ?? 'The response failed mid-body'}. The client got the status and part of the body, then the connection was cut.`,
      };
    }
    return {
      source: 'destination',
      title: `Destination answered ${status}`,
      explanation: `Status, headers and body are the destination's, relayed unchanged, with ${statusHeader}: ${status} added.`,
    };
  }
  const failure = details?.failure;
  const status = failure?.status ?? entry.status;
  const detail = failure?.detail ? `${failure.detail}. ` : '';
  return {
    source: 'proxy',
    title: `Proxy error ${status}`,
    explanation: `${detail}${proxyReachOf(entry)} The client got {"proxy_error": …} and no ${statusHeader} header.`,
  };
}

/** Whether the destination ever saw a request the proxy failed, in words. */
export function proxyReachOf(entry: HistoryEntry): string {
  const details = entry.proxy;
  if (!details) return 'The request was refused before the proxy read it; the destination did not receive it.';
  return proxyFailureExplanation(details.failure?.kind ?? null, details.outbound !== undefined);
}
