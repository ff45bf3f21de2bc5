/**
 * What history keeps of a request body whose shape it does not know: its size and its shape (the kind of value, and
 * how many items or fields), never a value or a key, since either may be plaintext sent where it does not belong.
 */
export interface RedactedBody {
  redacted: 'unexpected shape';
  /** The size of the body as JSON, in bytes. */
  bytes: number;
  /** `an object with 3 fields`, `an array of 2 items`, `a string`, … */
  shape: string;
}

const count = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

function shapeOf(value: unknown): string {
  if (Array.isArray(value)) return `an array of ${count(value.length, 'item')}`;
  if (value === null) return 'null';
  if (typeof value === 'object') return `an object with ${count(Object.keys(value).length, 'field')}`;
  return `a ${typeof value}`;
}

export function redactedBody(value: unknown): RedactedBody {
  return { redacted: 'unexpected shape', bytes: Buffer.byteLength(JSON.stringify(value) ?? ''), shape: shapeOf(value) };
}
