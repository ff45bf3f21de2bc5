import { formEncode, isStructured, jsonStringContent, toText } from '../expressions/rendered-value';
import { REDACTED } from '../vault/token-service';

/**
 * What a request detokenized, looked for in what the destination sent back: each value as text and as the body
 * carried it (escaped in a JSON string, encoded in a form), and every leaf of an object or array.
 */

/** Headers skip leaves shorter than this (a month, a flag): they would mask at random in a short header value. */
const SHORTEST_HEADER_LEAF = 4;

/** The string and number leaves of parsed JSON, as text, from `shortest` characters on. */
function leavesOf(value: unknown, shortest: number, into: string[]): void {
  if (typeof value === 'string' || typeof value === 'number') {
    const text = String(value);
    if (text.length >= shortest) into.push(text);
  } else if (typeof value === 'object' && value !== null) {
    for (const child of Object.values(value)) leavesOf(child, shortest, into);
  }
}

/** Every text under which the values may come back: `encoded` adds their JSON-escaped and form-encoded forms. */
function formsOf(values: readonly unknown[], shortestLeaf: number, encoded: boolean): string[] {
  const forms: string[] = [];
  for (const value of values) {
    // A flag or a null says nothing: looking for "true" would mask every other one.
    if (typeof value === 'boolean' || value === null || value === undefined) continue;
    if (isStructured(value)) leavesOf(value, shortestLeaf, forms);
    const text = toText(value);
    forms.push(text);
    if (encoded) forms.push(jsonStringContent(text), formEncode(text));
  }
  return forms.filter((form) => form !== '');
}

/** What a value escaped in a JSON string or encoded in a form holds that the value itself does not. */
const ENCODING_MARK = /[\\%+]/;

/** The texts of the values that `headers` (the answer's header values, joined) hold. */
export function echoedTexts(values: readonly unknown[], headers: string): string[] {
  // Headers without an escape or a percent sign (nearly all) cannot hold a value in another form than its own.
  const forms = formsOf(values, SHORTEST_HEADER_LEAF, ENCODING_MARK.test(headers));
  return [...new Set(forms.filter((form) => headers.includes(form)))];
}

/** Separators a number may be written with: `078-05-1120`, `4242 4242`, `12/30`, a form's `+`. */
const DIGITS_WRITTEN = /^\d(?:[ \-./+]?\d)*$/;
/** A number with fewer digits is looked for only as written: its digits alone would match at random. */
const FEWEST_DIGITS = 4;
const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A form as a pattern: a number's digits with or without separators between them, a short text only standing alone. */
function patternOf(form: string): string {
  const digits = form.replace(/\D/g, '');
  if (DIGITS_WRITTEN.test(form) && digits.length >= FEWEST_DIGITS) return [...digits].join('[ \\-./+]?');
  return form.length < SHORTEST_HEADER_LEAF ? `(?<![A-Za-z0-9])${escaped(form)}(?![A-Za-z0-9])` : escaped(form);
}

/**
 * `text` (an answer body) with every form of the values, leaves of every length included, as `[redacted]`; a number
 * also when its digits come back with other separators, or none. Answers the text and how many were masked.
 */
export function maskedEchoes(text: string, values: readonly unknown[]): { text: string; masked: number } {
  // Longest first: a value is masked whole before a part of it is.
  const forms = [...new Set(formsOf(values, 1, true))].sort((a, b) => b.length - a.length);
  if (forms.length === 0) return { text, masked: 0 };
  let masked = 0;
  const result = text.replace(new RegExp(forms.map(patternOf).join('|'), 'g'), () => {
    masked++;
    return REDACTED;
  });
  return { text: result, masked };
}
