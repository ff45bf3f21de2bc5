import type { CodeBody } from './code-call';

/*
 * Checks on what code returned, shared by both runtimes' contracts. A return that breaks its contract is the code's
 * runtime error (vendor-surfaces.md §2.4: a non-object return → 500), with a message saying what was expected.
 */

export class InvalidReturn extends Error {}

export const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** A short description of a value for an error message, never its content (it may be a detokenized card). */
export const describe = (value: unknown) => (value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`);

/**
 * A returned body as it crosses to the engine: strings and bytes as they are, anything else through JSON, which is
 * how it will be sent (so dates become strings and functions are refused here, not at the destination).
 */
export function body(value: unknown, where: string): CodeBody {
  if (typeof value === 'string') return value;
  if (value instanceof Uint8Array) return new Uint8Array(value);
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch (error) {
    throw new InvalidReturn(`${where} cannot be sent as JSON: ${(error as Error).message}`);
  }
  if (json === undefined) throw new InvalidReturn(`${where} cannot be sent as JSON: it is ${describe(value)}`);
  return JSON.parse(json) as unknown;
}

/** Headers as code gave them, each value a string (a list joined as repeated headers are), or null if not headers. */
export function headerValues(headers: unknown): Record<string, string> | null {
  if (!isObject(headers)) return null;
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const parts = Array.isArray(value) ? value : [value];
    if (!parts.every((part) => ['string', 'number', 'boolean'].includes(typeof part))) return null;
    out[name] = parts.map(String).join(', ');
  }
  return out;
}

export function headers(value: unknown, where: string): Record<string, string> {
  const checked = headerValues(value);
  if (!checked) throw new InvalidReturn(`${where} must map header names to strings, got ${describe(value)}`);
  return checked;
}

export const isStatus = (value: unknown): value is number => Number.isInteger(value) && (value as number) >= 100 && (value as number) <= 599;

export function statusCode(value: unknown, where: string): number {
  if (isStatus(value)) return value;
  throw new InvalidReturn(`${where} must be an integer from 100 to 599`);
}

/** `{ body, headers }` fields of a return, each only when given (a key left out keeps what the proxy had). */
export function bodyAndHeaders(returned: Record<string, unknown>, where: string): { body?: CodeBody; headers?: Record<string, string> } {
  return {
    ...(returned.body !== undefined && { body: body(returned.body, `${where}.body`) }),
    ...(returned.headers !== undefined && { headers: headers(returned.headers, `${where}.headers`) }),
  };
}
