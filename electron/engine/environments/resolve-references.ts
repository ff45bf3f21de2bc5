import { REFERENCE_NAME_RULE, referencesIn, referenceTo, type Reference } from '../../../shared/secrets/references';
import type { EnvironmentVariable } from '../../../shared/workbench/environment-contract';
import { bodyKindOf, type BodyKind } from '../expressions';
import { formEncode, jsonStringContent } from '../expressions/rendered-value';
import { ValuesAsReferences } from '../secrets/values-as-references';
import type { SecretStore } from '../secrets/secret-store';
import { ApiProblem } from '../server/problem';

/**
 * A composed request's references put in: `${secret:NAME}` from Secrets, `${env:NAME}` from the active environment
 * (a secret variable's value from Secrets too), in the path, the headers and the body. A value put in is never read
 * again for references, so a value holding `${…}` or `{{` goes out as it is. This happens before the proxy reads the
 * body's expressions, so a token id kept in a variable (`{{ ${env:card} | json: '$.number' }}`) is detokenized.
 */

/** What references resolve against: the active environment, or none. */
export interface ActiveVariables {
  /** The active environment's name; null when none is. */
  environment: string | null;
  /** Its variables by name: none when no environment is active, or its file cannot be read (`problem`). */
  variables: ReadonlyMap<string, EnvironmentVariable>;
  /** Why the active environment's variables could not be read (its file is gone, or is not an environment). */
  problem: string | null;
}

/** The parts of a request as a client sends it that references may stand in. */
export interface WireParts {
  path: string;
  headers: readonly (readonly [string, string])[];
  body: string | null;
}

/** Where a reference stands: the path, a header (by name), or a stretch of the body (UTF-16 offsets). */
export type ReferencePlace = { part: 'path' } | { part: 'header'; name: string } | { part: 'body'; from: number; to: number };

/** Why a reference cannot be put in: what is missing, and what to do about it. */
export interface Missing {
  problem: string;
  fix: string;
}

/** A reference that cannot be put in, where it is and why. */
export interface Unresolved extends Missing {
  /** As written: `${env:card}`. */
  reference: string;
  at: ReferencePlace;
}

/** How a body's stretch moved: `[from, to)` of the body as written became `length` characters. */
interface BodyEdit {
  from: number;
  to: number;
  length: number;
}

/**
 * How a request is resolved: for sending (every value, secret ones too), for its checks (secret ones left as written),
 * or for code to copy (a secret variable as the reference to its secret, which the code reads from its environment).
 */
type Mode = 'send' | 'check' | 'snippet';

/** What stands in a reference's place: a value (encoded for where it goes), null (left as written), or a reference. */
type Stand = string | null | { verbatim: string };

/** What a value is, once looked up: its text, whether it is a secret's (never shown or kept), or why there is none. */
type Lookup = { value: string; secret: boolean } | { missing: Missing };

const SET_SECRET = 'set it in Settings, under Secrets';
const EDIT_ENVIRONMENTS = 'add it in Settings, under Environments, or choose another environment beside Send';

/** A place's text with its references put in, each value written as `encode` makes it fit there. */
function substitute(text: string, encode: (value: string, at: number) => string, lookup: (reference: Reference) => Stand, edits?: BodyEdit[]): string {
  const references = referencesIn(text);
  if (references.length === 0) return text;
  let out = '';
  let at = 0;
  for (const reference of references) {
    const value = lookup(reference);
    if (value === null) continue;
    const encoded = typeof value === 'string' ? encode(value, reference.from) : value.verbatim;
    out += text.slice(at, reference.from) + encoded;
    edits?.push({ from: reference.from, to: reference.to, length: encoded.length });
    at = reference.to;
  }
  return out + text.slice(at);
}

/** Which offsets of a JSON text are inside a string literal: each literal's `[open quote, close quote]`. */
function jsonStrings(text: string): [number, number][] {
  const strings: [number, number][] = [];
  for (let at = text.indexOf('"'); at !== -1; ) {
    let end = at + 1;
    while (end < text.length && text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
    strings.push([at, end]);
    at = end < text.length ? text.indexOf('"', end + 1) : -1;
  }
  return strings;
}

/** How a value is written into a body of its kind: inside a JSON string escaped, in a form encoded, elsewhere as it is. */
function bodyEncoder(body: string, kind: BodyKind): (value: string, at: number) => string {
  if (kind === 'form') return formEncode;
  if (kind !== 'json') return (value) => value;
  const strings = jsonStrings(body);
  return (value, at) => (strings.some(([open, close]) => open < at && at < close) ? jsonStringContent(value) : value);
}

/** A value in a path: as it is, except what no request target may hold (spaces, quotes, characters past ASCII). */
const pathEncode = (value: string) => encodeURI(value).replace(/%25([0-9A-Fa-f]{2})/g, '%$1');

/** What a header can carry: tab, visible ASCII and Latin-1. */
const HEADER_TEXT = /^[\t\x20-\x7e\x80-\xff]*$/;

/** The references of a request as the engine resolves them now: for the request, the checks, and the history. */
export interface ResolvedRequest extends WireParts {
  headers: [string, string][];
  /** The secrets' values put in, each with its reference, and the headers as written: what history keeps instead. */
  asWritten: ValuesAsReferences | undefined;
  /** The path as written, when references in it were put in. */
  writtenPath: string | undefined;
  unresolved: Unresolved[];
  /** Where a stretch of the resolved body stands in the body as written (the checks' flags point there). */
  bodyOffset(resolved: number): number;
}

/**
 * Puts in the references of a request. For sending, a reference that cannot be put in is a 400 naming each one, its
 * place and the environment; for checking, secret values are left as written (a check never needs one) and the
 * unresolved are listed for the flags.
 */
export function resolveReferences(request: WireParts, active: ActiveVariables, secrets: SecretStore, mode: Mode): ResolvedRequest {
  const unresolved: Unresolved[] = [];
  /** Secret values put in, with the reference history shows instead. */
  const secretValues = new Map<string, string>();

  function lookup(reference: Reference): Lookup {
    const what = reference.kind === 'secret' ? 'secret' : 'variable';
    if (!reference.valid) return { missing: { problem: `“${reference.name}” is not a ${what} name`, fix: REFERENCE_NAME_RULE } };
    if (reference.kind === 'secret') return secretValue(reference.name, { problem: `No secret is named “${reference.name}”`, fix: SET_SECRET });
    const variable = active.variables.get(reference.name);
    if (!variable) {
      if (active.environment === null) return { missing: { problem: `No environment is chosen to give “${reference.name}”`, fix: 'choose one beside Send, or add one in Settings, under Environments' } };
      if (active.problem) return { missing: { problem: active.problem, fix: 'fix its file in the collections folder, or choose another environment beside Send' } };
      return { missing: { problem: `The environment “${active.environment}” has no variable “${reference.name}”`, fix: EDIT_ENVIRONMENTS } };
    }
    if (variable.secret === null) return { value: variable.value!, secret: false };
    return secretValue(variable.secret, { problem: `The variable “${reference.name}” of “${active.environment}” is kept in the secret “${variable.secret}”, which is not set here`, fix: SET_SECRET });
  }

  function secretValue(name: string, missing: Missing): Lookup {
    if (mode === 'snippet') return { value: referenceTo('secret', name), secret: true };
    if (mode === 'check') return secrets.has(name) ? { value: '', secret: true } : { missing };
    const value = secrets.value(name);
    return value === undefined ? { missing } : { value, secret: true };
  }

  /** What stands for a reference at `at`: null (left as written) when it has none, or is a secret being checked. */
  const resolver = (at: (reference: Reference) => ReferencePlace) => (reference: Reference): Stand => {
    const found = lookup(reference);
    const written = referenceTo(reference.kind, reference.name);
    if ('missing' in found) {
      unresolved.push({ reference: `\${${reference.kind}:${reference.name}}`, at: at(reference), ...found.missing });
      return null;
    }
    if (!found.secret) return found.value;
    if (mode === 'check') return null;
    if (mode === 'snippet') return { verbatim: found.value };
    secretValues.set(found.value, written);
    return found.value;
  };

  const path = substitute(request.path, pathEncode, resolver(() => ({ part: 'path' })));
  const writtenHeaders = new Map<string, string>();
  const headers = request.headers.map(([name, value]): [string, string] => {
    const resolved = substitute(value, (text) => text, resolver(() => ({ part: 'header', name })));
    if (resolved === value) return [name, value];
    if (mode === 'send' && !HEADER_TEXT.test(resolved)) {
      throw new ApiProblem(400, `The ${name} header would hold a line break or a character beyond Latin-1 once its references are put in, which no header can carry: change the value it refers to`);
    }
    writtenHeaders.set(ValuesAsReferences.headerKey(name, resolved), value);
    return [name, resolved];
  });
  const edits: BodyEdit[] = [];
  const contentType = request.headers.find(([name]) => name.toLowerCase() === 'content-type')?.[1];
  const body =
    request.body === null
      ? null
      : substitute(request.body, bodyEncoder(request.body, bodyKindOf(contentType)), resolver(({ from, to }) => ({ part: 'body', from, to })), edits);

  if (mode !== 'check' && unresolved.length > 0) throw new ApiProblem(400, unresolvedProblem(unresolved, active));
  return {
    path,
    headers,
    body,
    asWritten: secretValues.size === 0 && writtenHeaders.size === 0 ? undefined : new ValuesAsReferences(secretValues, writtenHeaders),
    writtenPath: path === request.path ? undefined : request.path,
    unresolved,
    bodyOffset: (resolved) => bodyOffset(edits, resolved),
  };
}

/** Where an offset of the resolved body stands in the body as written: a value put in maps to its reference's end. */
function bodyOffset(edits: readonly BodyEdit[], resolved: number): number {
  let shift = 0;
  for (const { from, to, length } of edits) {
    const start = from + shift;
    if (resolved < start) break;
    if (resolved <= start + length) return resolved === start ? from : to;
    shift += length - (to - from);
  }
  return resolved - shift;
}

/** Where a reference stands, in words. */
export const placeOf = (at: ReferencePlace) => (at.part === 'path' ? 'the path' : at.part === 'header' ? `the ${at.name} header` : 'the body');

/** One unresolved reference in words: what is missing, where the request refers to it, and what to do. */
export const unresolvedSentence = ({ problem, at, fix }: Unresolved) => `${problem} (${placeOf(at)} refers to it): ${fix}`;

/** The 400 of a request whose references cannot all be put in: each, where it is and why. */
function unresolvedProblem(unresolved: readonly Unresolved[], active: ActiveVariables): string {
  if (unresolved.length === 1) return `${unresolvedSentence(unresolved[0])}.`;
  const environment = active.environment === null ? 'no environment is chosen' : `the environment is “${active.environment}”`;
  return `The request refers to ${unresolved.length} values that cannot be put in (${environment}): ${unresolved.map(unresolvedSentence).join('; ')}.`;
}
