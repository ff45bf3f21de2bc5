/**
 * References to values kept apart from a request, written `${kind:NAME}` inside a header value
 * (`Authorization: Bearer ${secret:stripe-test}`). This is the one reader of that syntax: the engine resolves
 * references with it as a request leaves, a saved request is checked with it, and code to copy turns each into an
 * environment variable. The syntax holds no `{{`, so neither the proxy nor Liquid can take a reference for an
 * expression.
 */

/** The kinds of reference the engine resolves; a `${other:…}` is plain text. */
export const REFERENCE_KINDS = ['secret'] as const;
export type ReferenceKind = (typeof REFERENCE_KINDS)[number];

/** A name: what a user would call it, and a safe word in a header, a file, a shell variable's source. */
export const REFERENCE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
export const REFERENCE_NAME_RULE = 'a name is 1 to 64 letters, digits, dots, dashes and underscores, starting with a letter or digit';

/** `${secret:` up to the next `}`: the name is checked apart, so a malformed one is reported rather than sent as text. */
const REFERENCE = new RegExp(`\\$\\{(${REFERENCE_KINDS.join('|')}):([^}]*)\\}`, 'g');

export interface Reference {
  kind: ReferenceKind;
  name: string;
  /** Where it stands in the text: `text.slice(from, to)` is the whole `${kind:NAME}`. */
  from: number;
  to: number;
  /** False when the name breaks REFERENCE_NAME: the reference cannot be resolved. */
  valid: boolean;
}

/** Every reference in a text, in order. */
export function referencesIn(text: string): Reference[] {
  if (!text.includes('${')) return [];
  return [...text.matchAll(REFERENCE)].map((match) => ({
    kind: match[1] as ReferenceKind,
    name: match[2],
    from: match.index,
    to: match.index + match[0].length,
    valid: REFERENCE_NAME.test(match[2]),
  }));
}

/** The text split at its references: literal stretches (strings) and references, in order; empty stretches left out. */
export function referenceParts(text: string): (string | Reference)[] {
  const parts: (string | Reference)[] = [];
  let at = 0;
  for (const reference of referencesIn(text)) {
    if (reference.from > at) parts.push(text.slice(at, reference.from));
    parts.push(reference);
    at = reference.to;
  }
  if (at < text.length) parts.push(text.slice(at));
  return parts;
}

/** The text with each reference replaced by what `replace` gives for it; the text between them as it is. */
export const replaceReferences = (text: string, replace: (reference: Reference) => string) =>
  referenceParts(text)
    .map((part) => (typeof part === 'string' ? part : replace(part)))
    .join('');

/** How a reference is written. */
export const referenceTo = (kind: ReferenceKind, name: string) => `\${${kind}:${name}}`;
