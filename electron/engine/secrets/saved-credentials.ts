import { plainCredential } from '../../../shared/secrets/credential-headers';
import { REFERENCE_NAME, referencesIn, referenceTo } from '../../../shared/secrets/references';
import type { CollectionsView, SavedRequest } from '../../../shared/workbench/collection-contract';
import type { MovedAside } from '../../../shared/workbench/secret-contract';
import type { SecretWrites } from './secret-store';

/**
 * Credentials in saved requests: which headers of a request hold one in plain text, moving each into the secret store
 * (the request then refers to it by name), and which requests refer to which secrets.
 */

const MAX_NAME = 64;
/** The header's part of a made name is kept whole up to this; the request's part takes what is left. */
const MAX_HEADER_PART = 32;

/** Text as a part of a secret's name: lower case, words joined by dashes, no leading or trailing punctuation. */
const slug = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9_.]+/g, '-')
    .replace(/^[^a-z0-9]+|[^a-z0-9]+$/g, '');

/** `<where>-<header>`, or with `-<n>` after it, cut to a name's length: `payments-charge-a-card-authorization-2`. */
export function madeName(where: string, header: string, n: number): string {
  const suffix = n > 1 ? `-${n}` : '';
  const headerPart = slug(header).slice(0, MAX_HEADER_PART) || 'secret';
  const wherePart = slug(slug(where).slice(0, MAX_NAME - headerPart.length - suffix.length - 1));
  const name = `${wherePart ? `${wherePart}-` : ''}${headerPart}${suffix}`;
  // A made name is always a valid one; this guards the slug rules above against drifting from the syntax.
  if (!REFERENCE_NAME.test(name)) throw new Error(`made an invalid secret name: ${name}`);
  return name;
}

/** The headers of a request whose value holds a credential in plain text, by name. */
export const plainTextCredentials = (request: SavedRequest): string[] =>
  request.headers.filter(({ name, value }) => plainCredential(name, value) !== null).map(({ name }) => name);

/** The collections with each saved request's plain-text credentials named, for the warning the Composer shows. */
export function withPlainTextWarnings(view: CollectionsView): CollectionsView {
  return {
    ...view,
    collections: view.collections.map((collection) => ({
      ...collection,
      requests: collection.requests.map((entry) => ({ ...entry, secrets_in_plain_text: entry.request ? plainTextCredentials(entry.request) : [] })),
    })),
  };
}

/**
 * Moves each credential of a request into the store and answers the request that refers to them instead. A value
 * already kept (in `known`, the store's namesByValue, which this keeps up to date) reuses its name; another gets a name
 * made from `where` (the request's place, or the host it was imported from) and the header, numbered when taken. Stage
 * it in `store.atomically`, whose write is what must succeed with it.
 */
export function moveCredentialsAside(
  request: SavedRequest,
  where: string,
  store: SecretWrites,
  known: Map<string, string>,
): { request: SavedRequest; moved: MovedAside[] } {
  const moved: MovedAside[] = [];
  const headers = request.headers.map((header) => {
    const plain = plainCredential(header.name, header.value);
    if (!plain) return header;
    let secret = known.get(plain.credential);
    if (secret === undefined) {
      let n = 1;
      while (store.has((secret = madeName(where, header.name, n)))) n++;
      store.set(secret, plain.credential);
      known.set(plain.credential, secret);
    }
    moved.push({ header: header.name, secret });
    return { ...header, value: plain.scheme + referenceTo('secret', secret) };
  });
  return { request: moved.length === 0 ? request : { ...request, headers }, moved };
}

/** Which saved requests refer to each secret, by the secret's name. */
export function secretUses(view: CollectionsView): Map<string, { collection: string; name: string }[]> {
  const uses = new Map<string, { collection: string; name: string }[]>();
  for (const collection of view.collections) {
    for (const { name, request } of collection.requests) {
      const named = new Set(request?.headers.flatMap(({ value }) => referencesIn(value).filter((r) => r.kind === 'secret').map((r) => r.name)));
      for (const secret of named) uses.set(secret, [...(uses.get(secret) ?? []), { collection: collection.name, name }]);
    }
  }
  return uses;
}
