/** `buffer` cut at `cuts` (any order, repeats and out-of-range values ignored) into its non-empty pieces, in order. */
export function splitAt(buffer: Buffer, cuts: readonly number[]): Buffer[] {
  const bounds = [0, ...[...new Set(cuts)].filter((c) => c > 0 && c < buffer.length).sort((a, b) => a - b), buffer.length];
  return bounds.slice(1).map((end, i) => buffer.subarray(bounds[i], end)).filter((piece) => piece.length > 0);
}
