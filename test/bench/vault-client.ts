import { request, type Dispatcher } from 'undici';

export interface ApiReply {
  status: number;
  text: string;
}

/** One JSON call to the service outside the measured runs (fill, counts, sample replies). */
export async function apiCall(
  url: string,
  apiKey: string,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
  dispatcher?: Dispatcher,
): Promise<ApiReply> {
  const res = await request(url + path, {
    method,
    dispatcher,
    headers: { 'content-type': 'application/json', 'bt-api-key': apiKey },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.statusCode, text: await res.body.text() };
}

/** A reply that must have `status`; otherwise the error names the call (the body holds masked data at most). */
export async function expectReply(
  expected: number,
  ...args: Parameters<typeof apiCall>
): Promise<string> {
  const reply = await apiCall(...args);
  if (reply.status !== expected) {
    throw new Error(`${args[2]} ${args[3]} answered ${reply.status}, expected ${expected}: ${reply.text.slice(0, 300)}`);
  }
  return reply.text;
}
