import { isUtf8 } from 'node:buffer';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { markersEnd } from '../../electron/engine/expressions';
import { mayHoldExpressions } from '../../electron/engine/expressions/body-placement';
import { chunksAreUtf8, joinChunks, prefixOf } from '../../electron/engine/server/body-chunks';
import { splitAt } from '../support/pieces';

/** A buffer and the cut points that split it into chunks, down to one byte (a client can send them so). */
const cutBuffer = (bytes: fc.Arbitrary<Uint8Array>) =>
  bytes.chain((b) =>
    fc.uniqueArray(fc.integer({ min: 1, max: Math.max(1, b.length - 1) }), { maxLength: Math.min(12, b.length) }).map((cuts) => {
      const buffer = Buffer.from(b);
      return { buffer, body: { chunks: splitAt(buffer, cuts), size: buffer.length } };
    }),
  );

// Text with 1- to 4-byte characters, so that cuts fall inside sequences, and bytes that are no UTF-8 at all.
// Whole markers too, so that cuts fall at every point inside them.
const textBytes = fc
  .string({ unit: fc.constantFrom('a', '{', '}', '\\', 'u', '0', '7', 'b', 'B', '%', 'é', '東', '🎉', '\\u007b', '\\u007B', '%7B', '%7b', '{{') })
  .map((s) => new Uint8Array(Buffer.from(s)));
const anyBytes = fc.oneof(textBytes, fc.uint8Array({ maxLength: 40 }), textBytes.chain((t) => fc.uint8Array({ maxLength: 3 }).map((junk) => new Uint8Array([...t, ...junk]))));

describe('a request body in the chunks it arrived in', () => {
  it('property: is UTF-8 exactly when the whole body is, wherever it was cut', () => {
    fc.assert(
      fc.property(cutBuffer(anyBytes), ({ buffer, body }) => {
        expect(chunksAreUtf8(body)).toBe(isUtf8(buffer));
      }),
      { numRuns: 3000, seed: 11 },
    );
  });

  it('property: finds where the last marker ends as in the whole body, markers cut between chunks included', () => {
    const MARKERS = { json: ['{{', '\\u007b', '\\u007B'], form: ['{{', '%7B', '%7b'], text: ['{{'] };
    fc.assert(
      fc.property(cutBuffer(textBytes), fc.constantFrom('json', 'form', 'text' as const), ({ buffer, body }, kind) => {
        const ends = MARKERS[kind].map((m) => buffer.lastIndexOf(m)).map((at, i) => (at === -1 ? 0 : at + MARKERS[kind][i].length));
        const end = markersEnd(body.chunks, kind);
        expect(end).toBe(Math.max(0, ...ends));
        expect(end > 0).toBe(mayHoldExpressions(buffer, kind));
      }),
      { numRuns: 3000, seed: 12 },
    );
  });

  it('property: joins into, and keeps a prefix of, exactly the bytes sent', () => {
    fc.assert(
      fc.property(cutBuffer(anyBytes), fc.nat({ max: 50 }), ({ buffer, body }, max) => {
        expect(joinChunks(body).equals(buffer)).toBe(true);
        expect(Buffer.from(prefixOf(body, max)).equals(buffer.subarray(0, max))).toBe(true);
      }),
      { numRuns: 1000, seed: 13 },
    );
  });

  it('finds an expression whose braces came a byte at a time', () => {
    const bytes = [...Buffer.from('{"n":"\\u007b\\u007b tok }}"}')].map((b) => Buffer.from([b]));
    expect(markersEnd(bytes, 'json')).toBe(18);
    expect(markersEnd(bytes.slice(0, 11), 'json')).toBe(0);
  });
});
