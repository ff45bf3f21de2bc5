import type { ResolvedSecrets } from '../server/log-headers';

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
 * What a request's references resolved to, to be written back wherever something kept or shown of the request repeats
 * it: each secret's value (a `${secret:…}`, or a secret variable's) as its reference, as sent and as a JSON string
 * would carry it (an echo of the request); and each header whose references were put in, as it was written.
 */
export class ValuesAsReferences implements ResolvedSecrets {
  /** Longest first, so a value holding a shorter one is written back whole. */
  private readonly pairs: [value: string, reference: string][];

  /** How a header sent is found again: its name in lower case and its value as sent. */
  static headerKey = (name: string, value: string) => `${name.toLowerCase()}\n${value}`;

  constructor(
    secretValues: ReadonlyMap<string, string>,
    /** Each header whose references were put in, by headerKey of its value as sent: its value as written. */
    private readonly writtenHeaders: ReadonlyMap<string, string> = new Map(),
  ) {
    const pairs = [...secretValues].flatMap(([value, reference]): [string, string][] => {
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

  headerAsWritten(name: string, value: string): string | undefined {
    return this.writtenHeaders.get(ValuesAsReferences.headerKey(name, value));
  }

  /** The same for bytes, read as UTF-8 (a destination's answer, a kept body). */
  bytesAsReferences(bytes: Uint8Array): Buffer {
    const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    return this.pairs.reduce((out, [value, reference]) => replaceBytes(out, Buffer.from(value), Buffer.from(reference)), buffer);
  }
}
