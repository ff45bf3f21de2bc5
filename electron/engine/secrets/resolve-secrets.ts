import { REFERENCE_NAME_RULE, replaceReferences, referenceTo } from '../../../shared/secrets/references';
import type { ResolvedSecrets } from '../server/log-headers';
import { ApiProblem } from '../server/problem';
import type { SecretStore } from './secret-store';

/** `from` with every `find` in it replaced by `put`; `from` itself when it holds none. */
function replaceBytes(from: Buffer, find: Buffer, put: Buffer): Buffer {
  let at = from.indexOf(find);
  if (at === -1) return from;
  const parts: Buffer[] = [];
  let start = 0;
  for (; at !== -1; at = from.indexOf(find, start)) {
    parts.push(from.subarray(start, at), put);
    start = at + find.length;
  }
  parts.push(from.subarray(start));
  return Buffer.concat(parts);
}

/**
 * The values a request's references resolved to, to be written back as the references wherever something kept or
 * shown of the request repeats one: as sent, and as a JSON string would carry it (an echo of the request).
 */
export class ValuesAsReferences implements ResolvedSecrets {
  /** Longest first, so a value holding a shorter one is written back whole. */
  private readonly pairs: [value: string, reference: string][];

  constructor(references: ReadonlyMap<string, string>) {
    const pairs = [...references].flatMap(([value, reference]): [string, string][] => {
      const escaped = JSON.stringify(value).slice(1, -1);
      return escaped === value ? [[value, reference]] : [[value, reference], [escaped, reference]];
    });
    this.pairs = pairs.sort(([a], [b]) => b.length - a.length);
  }

  asReferences(text: string): string {
    let out = text;
    for (const [value, reference] of this.pairs) if (out.includes(value)) out = out.replaceAll(value, () => reference);
    return out;
  }

  /** The same for bytes, read as UTF-8 (a destination's answer). */
  bytesAsReferences(bytes: Buffer): Buffer {
    return this.pairs.reduce((out, [value, reference]) => replaceBytes(out, Buffer.from(value), Buffer.from(reference)), bytes);
  }
}

/**
 * The headers of a request the workbench sends, with each `${secret:NAME}` replaced by the secret's value, just before
 * the request leaves the engine; and what they resolved to, for everything that records or shows the request. A
 * reference that is malformed or names no secret is a 400 saying which header holds it and where secrets are set.
 */
export function resolveSecrets(
  headers: readonly [string, string][],
  store: SecretStore,
): { headers: [string, string][]; secrets: ValuesAsReferences | undefined } {
  const resolved = new Map<string, string>();
  const out = headers.map(([name, value]): [string, string] => [
    name,
    replaceReferences(value, (reference) => {
      if (!reference.valid) {
        throw new ApiProblem(400, `The ${name} header refers to “${reference.name}”, which is not a secret name: ${REFERENCE_NAME_RULE}.`);
      }
      const secret = store.value(reference.name);
      if (secret === undefined) {
        throw new ApiProblem(400, `No secret is named “${reference.name}” (the ${name} header refers to it): set it in Settings, under Secrets.`);
      }
      resolved.set(secret, referenceTo(reference.kind, reference.name));
      return secret;
    }),
  ]);
  return { headers: out, secrets: resolved.size === 0 ? undefined : new ValuesAsReferences(resolved) };
}
