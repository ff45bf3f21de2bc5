import { httpPath, LAUNCH_PATHS, PAGE_HEADER, SESSION_HEADER, SESSION_QUERY, WorkbenchError, type Problem } from '../../../shared/workbench/transport';
import type { Transport } from './transport';

const OPEN_THE_PRINTED_URL = 'Sign in with your workbench credential, open the Workbench URL that “tokenbench serve” printed, or run “npm start” again for a new link.';
/** Why a page without any session asks who you are: no fault of anyone's, so the sign-in form says it as a hint. */
export const NO_SESSION = `This page was opened without a workbench session. ${OPEN_THE_PRINTED_URL}`;
/** The engine refused this tab's session (revoked, expired, another run's): the sign-in form says so. */
export const SESSION_ENDED = `Your workbench session has ended: it was revoked, it expired, or the engine started again with a new one. ${OPEN_THE_PRINTED_URL}`;
const UNREACHABLE = 'Cannot reach the Tokenbench engine. Is it still running (“npm start” or “tokenbench serve”)?';

/** A problem the page tells itself, when the engine could not be asked. */
const problem = (status: number, detail: string): Problem => ({ type: 'about:blank', title: 'Workbench', status, detail });

/** The engine's problem details, which say why (a token deleted since, a permission withdrawn, …), or a plain one. */
function problemFrom(status: number, body: unknown, name: string): Problem {
  const sent = body as Partial<Problem> | null;
  if (typeof sent?.detail !== 'string' || typeof sent.title !== 'string') return problem(status, `The engine answered ${status} to ${name}.`);
  return { type: 'about:blank', title: sent.title, status, detail: sent.detail, errors: sent.errors };
}

/** A POST of JSON to the engine (same origin): its reply's JSON, or a WorkbenchError saying why there is none. */
async function post(path: string, name: string, headers: Record<string, string>, request: unknown, on401?: string): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(path, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(request), cache: 'no-store' });
  } catch {
    throw new WorkbenchError(problem(503, UNREACHABLE));
  }
  if (response.status === 401 && on401) throw new WorkbenchError(problem(401, on401));
  const body: unknown = await response.json().catch(() => null);
  if (response.ok) return body;
  throw new WorkbenchError(problemFrom(response.status, body, name));
}

/** A launch link's one-time code, traded for the session; the engine's refusal says whether it was used, expired or wrong. */
export async function tradeLaunchCode(code: string): Promise<string> {
  const { session } = (await post(LAUNCH_PATHS.session, 'the launch link', {}, { code })) as { session?: unknown };
  if (typeof session !== 'string') throw new WorkbenchError(problem(502, 'The engine answered the launch link without a session.'));
  return session;
}

/** A workbench credential (or the owner's session secret) traded for a session of its own: the engine says why not. */
export async function signIn(credential: string): Promise<string> {
  const { session } = (await post(LAUNCH_PATHS.signIn, 'the sign-in', {}, { credential })) as { session?: unknown };
  if (typeof session !== 'string') throw new WorkbenchError(problem(502, 'The engine answered the sign-in without a session.'));
  return session;
}

/**
 * The method table over the engine's HTTP endpoints (same origin): a POST per call, Server-Sent Events per stream.
 * The session may still be on its way (a launch link's code being traded); a failed trade fails every call with its
 * reason.
 */
export function httpTransport(session: Promise<string | null>): Transport {
  return {
    async call(name, request, page) {
      const current = await session;
      // No session may still be signed in by a trusted reverse proxy's identity header: the engine decides.
      return post(
        httpPath(name),
        name,
        { ...(current && { [SESSION_HEADER]: current }), ...(page && { [PAGE_HEADER]: page }) },
        request,
        current ? SESSION_ENDED : NO_SESSION,
      );
    },
    subscribe(name, onEvent, onLost) {
      let source: EventSource | undefined;
      let closed = false;
      session.then(
        (current) => {
          if (closed) return;
          source = new EventSource(`${httpPath(name)}${current ? `?${new URLSearchParams({ [SESSION_QUERY]: current })}` : ''}`);
          source.onmessage = (message: MessageEvent<string>) => onEvent(JSON.parse(message.data));
          // EventSource retries by itself unless the engine refused it (then it is CLOSED).
          source.onerror = () => onLost(source!.readyState !== EventSource.CLOSED);
        },
        () => onLost(false),
      );
      return () => {
        closed = true;
        source?.close();
      };
    },
  };
}
