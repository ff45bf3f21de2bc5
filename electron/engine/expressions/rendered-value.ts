/**
 * What an expression evaluates to, and the three ways it is written out: as text, as a typed JSON
 * value (parsed-JSON templates) and as a JSON literal (expressions outside string literals of a JSON body).
 */

/** Output of `json_stringify`: JSON text that JSON positions insert verbatim instead of quoting again. */
export class JsonText {
  constructor(readonly text: string) {}
}

/** `hmac` yields bytes (as the hosted service does); unless encoded explicitly they are written as hex. */
export function bytesToHex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex').toUpperCase();
}

/** A plain object or array: the results that replace a whole JSON string with a JSON value. */
export function isStructured(value: unknown): value is object {
  return typeof value === 'object' && value !== null && !(value instanceof Uint8Array) && !(value instanceof JsonText);
}

/**
 * Whether a result is written as nothing: no text, `""` as a whole JSON string, `null` as a bare JSON literal (a
 * filter's bytes never are empty).
 */
export const writesNothing = (value: unknown): boolean => value === null || value === undefined || value === '';

export function toText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (value instanceof JsonText) return value.text;
  if (value instanceof Uint8Array) return bytesToHex(value);
  if (typeof value === 'object') return JSON.stringify(value);
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- objects returned above; a number, boolean or bigint is left
  return String(value);
}

/** A value that JSON.stringify writes faithfully (undefined → null, bytes → hex, json_stringify output → its text). */
export function toJsonValue(value: unknown): unknown {
  if (value === undefined) return null;
  if (value instanceof JsonText) return value.text;
  if (value instanceof Uint8Array) return bytesToHex(value);
  return value;
}

/** JSON text for a bare position: json_stringify output verbatim, anything else serialized (strings get quotes). */
export function toJsonLiteral(value: unknown): string {
  if (value instanceof JsonText) return value.text;
  return JSON.stringify(toJsonValue(value)) ?? 'null';
}

// What JSON.stringify escapes: quotes, backslashes, control characters and (lone) surrogates. Most values (card
// numbers, names) hold none of them and are written as they are.
const JSON_ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/;

/** Text as the content of a JSON string literal. */
export const jsonStringContent = (text: string): string => (JSON_ESCAPED.test(text) ? JSON.stringify(text).slice(1, -1) : text);

// What form encoding leaves as it is; most values (card numbers) are only that.
const FORM_SAFE = /^[A-Za-z0-9*\-._]*$/;

/** Text as application/x-www-form-urlencoded writes it (space → '+'), lone surrogates included, as URLSearchParams does. */
export const formEncode = (text: string): string => (FORM_SAFE.test(text) ? text : new URLSearchParams([['', text]]).toString().slice(1));
