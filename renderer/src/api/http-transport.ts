import { httpPath, PAGE_HEADER, SESSION_HEADER, SESSION_QUERY, WorkbenchError, type Problem } from '../../../shared/workbench/transport';
import type { Transport } from './transport';

const OPEN_THE_PRINTED_URL = 'Open the Workbench URL that “tokenbench serve” printed.';

/** A problem the page tells itself, when the engine could not be asked. */
const problem = (status: number, detail: string): Problem => ({ type: 'about:blank', title: 'Workbench', status, detail });

/** The engine's problem details, which say why (a token deleted since, a permission withdrawn, …), or a plain one. */
function problemFrom(status: number, body: unknown, name: string): Problem {
  const sent = body as Partial<Problem> | null;
  if (typeof sent?.detail !== 'string' || typeof sent.title !== 'string') return problem(status, `The engine answered ${status} to ${name}.`);
  return { type: 'about:blank', title: sent.title, status, detail: sent.detail, errors: sent.errors };
}

/** The method table over the engine's HTTP endpoints (same origin): a POST per call, Server-Sent Events per stream. */
export function httpTransport(session: string | null): Transport {
  return {
    async call(name, request, page) {
      if (!session) throw new WorkbenchError(problem(401, `This page was opened without a workbench session. ${OPEN_THE_PRINTED_URL}`));
      let response: Response;
      try {
        response = await fetch(httpPath(name), {
          method: 'POST',
          headers: { [SESSION_HEADER]: session, 'content-type': 'application/json', ...(page && { [PAGE_HEADER]: page }) },
          body: JSON.stringify(request),
          cache: 'no-store',
        });
      } catch {
        throw new WorkbenchError(problem(503, 'Cannot reach the Tokenbench engine. Is “tokenbench serve” still running?'));
      }
      if (response.status === 401) {
        throw new WorkbenchError(
          problem(401, `The workbench session in this link is not the running engine's (each start makes a new one). ${OPEN_THE_PRINTED_URL}`),
        );
      }
      const body: unknown = await response.json().catch(() => null);
      if (response.ok) return body;
      throw new WorkbenchError(problemFrom(response.status, body, name));
    },
    subscribe(name, onEvent, onLost) {
      const source = new EventSource(`${httpPath(name)}?${new URLSearchParams({ [SESSION_QUERY]: session ?? '' })}`);
      source.onmessage = (message: MessageEvent<string>) => onEvent(JSON.parse(message.data));
      // EventSource retries by itself unless the engine refused it (then it is CLOSED).
      source.onerror = () => onLost(source.readyState !== EventSource.CLOSED);
      return () => source.close();
    },
  };
}
