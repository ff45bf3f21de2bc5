/**
 * The legacy `callback_url` of a synchronous react (vendor-surfaces.md §3.5, shut down by the vendor on 2025-01-15 and
 * still sent by old SDKs): the call runs as react-async, and its result is POSTed as JSON to the URL, retried with
 * exponential back-off on a failure or a non-2xx reply, then dropped; a destination the policy refuses is dropped at once.
 */
import { parseDestinationUrl } from '../proxy/destination-url';
import { ForwardError, type Forwarder } from '../proxy/forwarder';
import { ApiProblem } from '../server/problem';
import type { ReactAnswer } from './reactor-results';

/** Tries after the first (the vendor's old rule); each wait is twice the one before. */
const RETRIES = 10;

/** The URL a react's body names (`callback_url`, or the legacy JS SDK's `callbackUrl`); 400 when it is no usable URL. */
export function parseCallbackUrl(body: Record<string, unknown>): URL | null {
  const given = body.callback_url ?? body.callbackUrl;
  if (given === undefined || given === null) return null;
  const url = typeof given === 'string' ? parseDestinationUrl(given) : 'must be a string';
  if (typeof url === 'string') throw new ApiProblem(400, `callback_url ${url}`, { callback_url: [`callback_url ${url}`] });
  return url;
}

/**
 * Posts the result to the URL in the background, through the proxy's forwarder so the destination policy applies (the
 * engine's own port, link-local and metadata addresses refused; private ranges with --deny-private-destinations); the
 * engine's log hears of a delivery given up, never the body.
 */
export function deliverCallback(forwarder: Forwarder, url: URL, answer: ReactAnswer, log: (line: string) => void, firstRetryMs: number, attempt = 0): void {
  const retry = (why: string) => {
    if (attempt >= RETRIES) return log(`Reactor callback to ${url.origin}: given up after ${RETRIES + 1} tries (${why})`);
    setTimeout(() => deliverCallback(forwarder, url, answer, log, firstRetryMs, attempt + 1), firstRetryMs * 2 ** attempt).unref();
  };
  let status = 0;
  const body = Buffer.from(JSON.stringify(answer.body ?? {}));
  const request = { origin: url.origin, path: `${url.pathname}${url.search}`, method: 'POST', headers: ['content-type', 'application/json'], body };
  const sink = { start: (answered: number) => void (status = answered), write: () => true, end: () => undefined };
  forwarder.forward(request, sink).done.then(
    () => (status >= 200 && status < 300 ? undefined : retry(`status ${status}`)),
    (error: unknown) =>
      // A refused destination stays refused: trying again would only repeat the refusal for hours.
      error instanceof ForwardError && error.kind === 'policy'
        ? log(`Reactor callback to ${url.origin}: refused by the destination policy, not sent (${error.message})`)
        : retry((error as Error).message),
  );
}
