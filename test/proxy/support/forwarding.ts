/** Small helpers shared by the forwarder and policy tests. */
import { expect } from 'vitest';
import type { ForwardRequest } from '../../../electron/engine/proxy/forwarder';

export function getRequest(url: string, headers: string[] = []): ForwardRequest {
  return { url: new URL(url), method: 'GET', headers, body: null };
}


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
