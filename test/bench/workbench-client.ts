import type { CallName } from '../../shared/workbench/methods';
import { httpPath, SESSION_HEADER, SESSION_QUERY } from '../../shared/workbench/transport';

/** A workbench method over HTTP as the browser page calls it, with the session of `workbenchUrl` (the page's address). */
export function workbenchCaller(url: string, workbenchUrl: string): (name: CallName, request: unknown) => Promise<unknown> {
  const session = new URL(workbenchUrl).hash.slice(`#${SESSION_QUERY}=`.length);
  return async (name, request) => {
    const reply = await fetch(`${url}${httpPath(name)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [SESSION_HEADER]: session },
      body: JSON.stringify(request),
    });
    if (!reply.ok) throw new Error(`${name}: ${reply.status} ${await reply.text()}`);
    return reply.json() as Promise<unknown>;
  };
}
