import { isUtf8 } from 'node:buffer';

/**
 * A request body as it arrived: its chunks, not yet copied into one buffer. The proxy forwards a body without
 * expressions as these chunks, because joining a large body allocates outside V8's heap, and such allocations force
 * young-generation collections.
 */
export interface BodyChunks {
  readonly chunks: readonly Buffer[];
  readonly size: number;
}

/** Pieces of a body: one buffer as it is, several as BodyChunks. */
export function asBody(pieces: Buffer[]): Buffer | BodyChunks {
  if (pieces.length === 1) return pieces[0];
  let size = 0;
  for (const piece of pieces) size += piece.length;
  return { chunks: pieces, size };
}

/** The body as one buffer: the chunk itself when there is one. */
export function joinChunks({ chunks, size }: BodyChunks): Buffer {
  return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size);
}

/** A copy of the body's first `max` bytes. */
export function prefixOf({ chunks, size }: BodyChunks, max: number): Uint8Array {
  const prefix = new Uint8Array(Math.min(size, max));
  let at = 0;
  for (const chunk of chunks) {
    if (at === prefix.length) break;
    const take = Math.min(chunk.length, prefix.length - at);
    prefix.set(chunk.subarray(0, take), at);
    at += take;
  }
  return prefix;
}

/** How many bytes the UTF-8 sequence this byte leads takes (1 for ASCII and for bytes that lead none). */
const sequenceLength = (lead: number) => (lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1);

/** Bytes at the end of `chunk` (from `start` on) that start a UTF-8 sequence the chunk does not finish (0 to 3). */
function unfinishedTail(chunk: Buffer, start: number): number {
  for (let back = 1; back <= Math.min(3, chunk.length - start); back++) {
    const byte = chunk[chunk.length - back];
    if ((byte & 0xc0) === 0x80) continue; // a continuation byte: look further back for its lead
    return sequenceLength(byte) > back ? back : 0;
  }
  return 0;
}

/** Whether the chunks together are valid UTF-8, without joining them: a sequence split between two is checked whole. */
export function chunksAreUtf8({ chunks }: BodyChunks): boolean {
  if (chunks.length === 1) return isUtf8(chunks[0]);
  let carry: Buffer | null = null;
  for (const chunk of chunks) {
    let start = 0;
    if (carry) {
      // The split sequence: its lead byte says how many bytes it takes from this chunk.
      const need = sequenceLength(carry[0]) - carry.length;
      if (need > chunk.length) {
        carry = Buffer.concat([carry, chunk]);
        continue;
      }
      if (!isUtf8(Buffer.concat([carry, chunk.subarray(0, need)]))) return false;
      start = need;
      carry = null;
    }
    const tail = unfinishedTail(chunk, start);
    // Whole chunks are checked as they are: a subarray per chunk costs more than the check.
    if (!isUtf8(start === 0 && tail === 0 ? chunk : chunk.subarray(start, chunk.length - tail))) return false;
    if (tail > 0) carry = chunk.subarray(chunk.length - tail);
  }
  return carry === null;
}
