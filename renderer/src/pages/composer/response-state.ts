import { useMemo } from 'react';
import type { Exchange, HistoryEntry } from '../../../../shared/workbench/contract';
import { answerSourceOf, proxyReachOf } from '../../components/answer-source';
import { useComposerStore } from '../../state/composer-store';
import { useEngineStore } from '../../state/engine-store';

type Received = Extract<Exchange['outcome'], { kind: 'response' }>;

/** A problem-details body (the engine's, or the proxy's inside `proxy_error`), when the answer is one. */
export interface ProblemBody {
  title?: string;
  status?: number;
  detail?: string;
  errors?: Record<string, string[]>;
}

/** The three outcomes the Response keeps apart (and two that are not answers), each with what the user needs. */
export type ResponseState =
  | { kind: 'destination'; response: Received; tone: 'ok' | 'refused' | 'failed'; title: string; explanation: string }
  | {
      kind: 'proxy';
      response: Received;
      title: string;
      problem: ProblemBody | null;
      /** Whether the destination ever saw the request, in words. */
      reach: string;
      advice: string | null;
      /** The text in the request that the failure names (a token id), to mark and jump to. */
      culprit: string | null;
    }
  | { kind: 'api'; response: Received; tone: 'ok' | 'refused' | 'failed'; title: string; problem: ProblemBody | null }
  | { kind: 'unreachable'; tried: string; detail: string }
  | { kind: 'cancelled' };

export function bodyBytes(response: Received): Uint8Array {
  return Uint8Array.from(atob(response.body_base64), (char) => char.charCodeAt(0));
}

/** The body as text, or null when it is not UTF-8 (then only hex shows it faithfully). */
export function bodyText(response: Received): string | null {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bodyBytes(response));
  } catch {
    return null;
  }
}

function jsonOf(response: Received): unknown {
  const text = bodyText(response);
  if (text === null) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const headerOf = (response: Received, name: string) => response.headers.find(([n]) => n.toLowerCase() === name.toLowerCase())?.[1];

const toneOf = (status: number) => (status >= 500 ? 'failed' : status >= 400 ? 'refused' : 'ok');

const TOKEN_ID = /(?:Token|tokens:) ([^\s,]+)|([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})/;

/** What to do about a proxy failure: the next step for each cause the engine reports. */
function adviceFor(status: number, detail: string, kind: string | null, applicationName: string | null): string | null {
  const lacking = /lacks (\S+)(?: \(or [^)]+\))?(?: on container (.+))?$/.exec(detail);
  if (status === 403 && lacking) {
    const [, permission, containers] = lacking;
    const where = containers ? ` on ${containers}` : '';
    return `Grant ${permission}${where} to ${applicationName ? `“${applicationName}”` : 'the application'} with an access rule, or send as an application that has it.`;
  }
  if (/not found or expired/.test(detail)) return 'Use a token that exists: create it, fix the id, or give an expired token a later expires_at.';
  if (kind === 'timeout') return `${detail[0].toUpperCase()}${detail.slice(1)}: check the destination is up and answers in time (serve --proxy-timeout sets the limit).`;
  if (kind === 'unreachable') return 'Check the destination URL, and that the destination runs and can be reached from this machine.';
  if (kind === 'bad_response') return 'Check that the destination URL points at an HTTP server: what answered there did not speak HTTP.';
  if (kind === 'policy') return 'Tokenbench refuses this destination: send to another address, or start serve without --deny-private-destinations for a local one.';
  if (status === 401) return 'The key was refused: send as an application of this engine, or check the key you wrote in the headers.';
  return null;
}

/**
 * Who answered a composed request, as the Response shows it. Through the proxy the header decides: with
 * PFX-PROXY-DESTINATION-STATUS the destination answered (its answer relayed as is); without it the proxy failed.
 */
export function responseStateOf(exchange: Exchange, prefix: string, applicationName: string | null, throughProxy: boolean): ResponseState {
  const { outcome, request } = exchange;
  if (outcome.kind === 'cancelled') return { kind: 'cancelled' };
  if (outcome.kind === 'unreachable') {
    return { kind: 'unreachable', tried: `${request.method} ${request.url}`, detail: outcome.code ? `${outcome.detail} (${outcome.code})` : outcome.detail };
  }
  const status = outcome.status;
  if (throughProxy && headerOf(outcome, `${prefix}-PROXY-DESTINATION-STATUS`) !== undefined) {
    const tone = toneOf(status);
    const says = { ok: 'answered', refused: 'refused the request: check your integration with it', failed: 'failed' }[tone];
    const source = exchange.entry ? answerSourceOf(exchange.entry, prefix) : null;
    return {
      kind: 'destination',
      response: outcome,
      tone,
      title: `The destination ${says}`,
      explanation: source?.explanation ?? `Status, headers and body are the destination's, relayed with ${prefix}-PROXY-DESTINATION-STATUS.`,
    };
  }
  const json = jsonOf(outcome) as { proxy_error?: ProblemBody } & ProblemBody;
  if (throughProxy) {
    const problem = json?.proxy_error ?? (json?.title ? json : null);
    const detail = problem?.detail ?? '';
    const entry: HistoryEntry | null = exchange.entry;
    const failure = entry?.proxy?.failure ?? null;
    const reach = entry ? proxyReachOf(entry) : 'The proxy answered itself: the destination did not receive the request.';
    // The token the failure names; for a refusal that names none, the one token the request used.
    const named = TOKEN_ID.exec(detail);
    const used = entry?.proxy?.expressions.token_ids ?? [];
    const culprit = named ? (named[1] ?? named[2]) : used.length === 1 ? used[0] : null;
    return {
      kind: 'proxy',
      response: outcome,
      title: status >= 500 || status === 408 ? 'The proxy could not complete the request' : 'The proxy refused the request',
      problem,
      reach,
      advice: adviceFor(status, detail, failure?.kind ?? null, applicationName),
      culprit,
    };
  }
  const tone = toneOf(status);
  return {
    kind: 'api',
    response: outcome,
    tone,
    title: `The API answered ${status} ${outcome.status_text}`.trim(),
    problem: tone === 'ok' ? null : (json ?? null),
  };
}

/** The state of the last answer, as both panes of the Composer read it. */
export function useResponseState(): ResponseState | null {
  const result = useComposerStore((state) => state.result);
  const prefix = useEngineStore((state) => state.status?.headerPrefix ?? 'BT');
  return useMemo(() => {
    if (!result) return null;
    if (result.kind === 'no-engine') return { kind: 'unreachable', tried: result.tried, detail: result.detail };
    return responseStateOf(result.exchange, prefix, result.applicationName, result.throughProxy);
  }, [result, prefix]);
}
