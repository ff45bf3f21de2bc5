/** Small helpers shared by the forwarder and policy tests. */
import { expect } from 'vitest';
import type { Forwarder, Forwarding, ForwardRequest } from '../../../electron/engine/proxy/forwarder';

/** Where a ForwardRequest goes, from an absolute URL. */
export function target(url: string): Pick<ForwardRequest, 'origin' | 'path'> {
  const { origin, pathname, search } = new URL(url);
  return { origin, path: pathname + search };
}

export function getRequest(url: string, headers: string[] = []): ForwardRequest {
  return { ...target(url), method: 'GET', headers, body: null };
}

export interface Relayed {
  status: number;
  headers: string[];
  headersMs: number;
  body: Buffer;
}

/** Forwards into a sink that gathers everything: `head` settles at the destination's status line, `whole` at the end. */
export function relay(f: Forwarder, req: ForwardRequest): { forwarding: Forwarding; head: Promise<Omit<Relayed, 'body'>>; whole: Promise<Relayed> } {
  const chunks: Buffer[] = [];
  let gotHead!: (head: Omit<Relayed, 'body'>) => void;
  const head = new Promise<Omit<Relayed, 'body'>>((resolve) => (gotHead = resolve));
  const forwarding = f.forward(req, {
    start: (status, headers, headersMs) => gotHead({ status, headers, headersMs }),
    write(chunk) {
      chunks.push(chunk);
      return true; // never full
    },
    end: () => undefined,
  });
  const whole = forwarding.done.then(async () => ({ ...(await head), body: Buffer.concat(chunks) }));
  return { forwarding, head, whole };
}

/** The destination's whole answer; rejects with the forwarder's ForwardError. */
export const forwardAll = (f: Forwarder, req: ForwardRequest): Promise<Relayed> => relay(f, req).whole;

/** Awaits a promise that must reject with an instance of `type`, and returns that error for closer checks. */
export async function rejectionOf<E>(pending: Promise<unknown>, type: abstract new (...args: never[]) => E): Promise<E> {
  const outcome = await pending.then(
    (value: unknown) => ({ value }),
    (error: unknown) => ({ error }),
  );
  expect(outcome).not.toHaveProperty('value');
  const { error } = outcome as { error: unknown };
  expect(error).toBeInstanceOf(type);
  return error as E;
}
