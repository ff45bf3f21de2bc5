import { useMemo } from 'react';
import type { Exchange, RemoteTarget } from '../../../../shared/workbench/composer-contract';
import type { HistoryEntry } from '../../../../shared/workbench/history-contract';
import { answerSourceOf, proxyReachOf } from '../../components/answer-source';
import { ADVICE, placeOf, proxyFailureKind, unreachedKind } from './failure-advice';
import { useComposerStore } from '../../state/composer-store';
import { useHeaderPrefix } from '../../state/engine-store';

type Received = Extract<Exchange['outcome'], { kind: 'response' }>;

/** A problem-details body (the engine's, or the proxy's inside `proxy_error`), when the answer is one. */
export interface ProblemBody {
  title?: string;
  status?: number;
  detail?: string;
  errors?: Record<string, string[]>;
}

/** An expression the proxy wrote as nothing in the request it forwarded, and where it sits in the body as sent. */
export type EmptyExpression = NonNullable<NonNullable<HistoryEntry['proxy']>['expressions']['empty']>[number];

/** The three outcomes the Response keeps apart (and two that are not answers), each with what the user needs. */
export type ResponseState =
  | {
      kind: 'destination';
      response: Received;
      tone: 'ok' | 'refused' | 'failed';
      title: string;
      explanation: string;
      /** What the engine recorded as it sent the request: expressions that went out as nothing. */
      empty: readonly EmptyExpression[];
      advice: string | null;
    }
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
  | {
      kind: 'unreachable';
      /** Whom: this engine, or a remote target by name. */
      title: string;
      tried: string;
      detail: string;
      advice: string | null;
    }
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

/** Nothing answered: this engine (the workbench's own service), or a remote target, named with its address. */
function notReached(tried: string, detail: string, code: string | null, remote: RemoteTarget | null): ResponseState {
  const facts = remote
    ? { ...placeOf(remote.base_url), who: 'the service', fix: `the base URL of “${remote.name}” (${remote.base_url}) in Remote targets` }
    : { ...placeOf(tried.slice(tried.indexOf(' ') + 1)), who: 'Tokenbench', fix: 'the engine' };
  return {
    kind: 'unreachable',
    title: remote ? `“${remote.name}” could not be reached` : 'The service could not be reached',
    tried,
    detail,
    advice: ADVICE[unreachedKind(code, remote !== null)].say({ ...facts, application: null, detail }),
  };
}

/**
 * Who answered a composed request, as the Response shows it. Through the proxy the header decides: with
 * PFX-PROXY-DESTINATION-STATUS the destination answered (its answer relayed as is); without it the proxy failed.
 */
export function responseStateOf(exchange: Exchange, prefix: string, applicationName: string | null, throughProxy: boolean, remote: RemoteTarget | null): ResponseState {
  const { outcome, request } = exchange;
  if (outcome.kind === 'cancelled') return { kind: 'cancelled' };
  if (outcome.kind === 'unreachable') {
    // The socket's words usually carry its code already.
    const detail = outcome.code && !outcome.detail.includes(outcome.code) ? `${outcome.detail} (${outcome.code})` : outcome.detail;
    return notReached(`${request.method} ${request.url}`, detail, outcome.code, remote);
  }
  const status = outcome.status;
  const entry: HistoryEntry | null = exchange.entry;
  const destinationFacts = { ...placeOf(entry?.proxy?.destination_url ?? ''), who: 'the destination', fix: 'the destination URL', application: applicationName };
  if (throughProxy && headerOf(outcome, `${prefix}-PROXY-DESTINATION-STATUS`) !== undefined) {
    const tone = toneOf(status);
    const says = { ok: 'answered', refused: 'refused the request: check your integration with it', failed: 'failed' }[tone];
    const source = entry ? answerSourceOf(entry, prefix) : null;
    const kind = tone === 'ok' ? null : tone === 'refused' ? 'destination_refused' : 'destination_failed';
    return {
      kind: 'destination',
      response: outcome,
      tone,
      title: `The destination ${says}`,
      explanation: source?.explanation ?? `Status, headers and body are the destination's, relayed with ${prefix}-PROXY-DESTINATION-STATUS.`,
      empty: entry?.proxy?.expressions.empty ?? [],
      advice: kind && ADVICE[kind].say({ ...destinationFacts, detail: '' }),
    };
  }
  const json = jsonOf(outcome) as { proxy_error?: ProblemBody } & ProblemBody;
  if (throughProxy) {
    const problem = json?.proxy_error ?? (json?.title ? json : null);
    const detail = problem?.detail ?? '';
    const failure = entry?.proxy?.failure ?? null;
    const reach = entry ? proxyReachOf(entry) : 'The proxy answered itself: the destination did not receive the request.';
    const advice = ADVICE[proxyFailureKind(status, detail, failure)];
    // The token the failure names; for a refusal that names none, the one token the request used.
    const named = TOKEN_ID.exec(detail);
    const used = entry?.proxy?.expressions.token_ids ?? [];
    const culprit = !advice.token ? null : named ? (named[1] ?? named[2]) : used.length === 1 ? used[0] : null;
    return {
      kind: 'proxy',
      response: outcome,
      title: status >= 500 || status === 408 ? 'The proxy could not complete the request' : 'The proxy refused the request',
      problem,
      reach,
      advice: advice.say({ ...destinationFacts, detail }),
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
  const prefix = useHeaderPrefix();
  return useMemo(() => {
    if (!result) return null;
    if (result.kind === 'no-engine') return notReached(result.tried, result.detail, null, null);
    return responseStateOf(result.exchange, prefix, result.applicationName, result.throughProxy, result.remote);
  }, [result, prefix]);
}
