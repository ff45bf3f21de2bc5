import type { ProxyDetails } from '../../../shared/workbench/history-contract';
import type { EventCause, EventOutbox } from '../events/event-outbox';
import { maskCardNumbers } from '../history/card-numbers';
import type { KeptBody } from '../history/kept-body';
import { BODY_KEPT, type ProxyExchange } from './proxy-history';

/** What an event puts in place of each value the call detokenized (vendor-surfaces.md §5.5). */
const SANITIZED = '***';

/** Header pairs as the vendor's events give them: each name with its values. */
function headerLists(pairs: readonly [string, string][] | undefined): Record<string, string[]> {
  const lists: Record<string, string[]> = {};
  for (const [name, value] of pairs ?? []) (lists[name] ??= []).push(value);
  return lists;
}

function queryLists(url: string | undefined): Record<string, string[]> {
  const lists: Record<string, string[]> = {};
  if (url === undefined) return lists;
  for (const [name, value] of new URL(url).searchParams) (lists[name] ??= []).push(value);
  return lists;
}

/**
 * The body that left, as far as history keeps a body: each detokenized value as `***` where detokenization made the
 * body and nothing changed it since; the body as the call's trace keeps it (every detokenized value and card number
 * masked) where a transform did; the client's own body, its card numbers masked, where no expression was in it.
 */
function sentBody(exchange: ProxyExchange, clientBody: KeptBody | undefined): string | null {
  const { render, detokenized, preconfigured } = exchange;
  if (render && detokenized?.length === render.compiled.expressionCount && (preconfigured?.revealable ?? true)) {
    return render.compiled.renderResults(detokenized.map(() => SANITIZED), BODY_KEPT, render.chunks);
  }
  if (preconfigured?.outboundBody !== undefined) return preconfigured.outboundBody;
  if (render || !clientBody?.utf8) return null;
  return maskCardNumbers(Buffer.from(clientBody.kept).toString('utf8')).text;
}

/**
 * proxy.invoked for a call of a pre-configured proxy, once it is over: made from what History records of it (headers
 * and answer masked), so it holds no value the call detokenized. The answer's body is there only when History keeps
 * answers. The deprecated top-level `request` and `response` repeat the destination's.
 */
export function raiseInvoked(
  outbox: EventOutbox,
  exchange: ProxyExchange,
  call: { details: ProxyDetails; answerText?: string; clientBody?: KeptBody; status: number },
  cause: EventCause,
): void {
  const { preconfigured } = exchange;
  if (!preconfigured || !outbox.wants('proxy.invoked')) return;
  outbox.raise({
    type: 'proxy.invoked',
    data: () => {
      const { details, answerText, clientBody, status } = call;
      const { outbound, response, failure, timings } = details;
      const request = outbound && {
        method: outbound.method,
        url: outbound.url ?? null,
        query: queryLists(outbound.url),
        headers: headerLists(outbound.headers),
        body: sentBody(exchange, clientBody),
      };
      const answered = response && {
        status: response.status,
        elapsed_ms: timings.destination_headers_ms,
        headers: headerLists(response.headers),
        body: answerText ?? null,
      };
      const error = failure && (failure.detail ?? failure.reason ?? `status ${failure.status}`);
      return {
        proxy: { id: preconfigured.id, name: preconfigured.name, type: 'pre-configured', response: { status, elapsed_ms: timings.total_ms, ...(error && { error }) } },
        destination: { request: request ?? null, response: answered ?? null },
        request: request ?? null,
        response: answered ?? null,
      };
    },
    ...cause,
  });
}
