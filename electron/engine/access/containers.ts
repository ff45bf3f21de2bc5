/**
 * Token containers: hierarchical paths such as `/pci/high/` (docs/api.md, Containers). The hosted service treats them
 * case-insensitively and stores them lower-case, so every container is validated, then normalised, on the way in.
 */

// `/` alone is the root; otherwise one or more segments, each closed by a `/`.
const CONTAINER = /^\/(?:[A-Za-z0-9_-]+\/)*$/;

/** Null when `container` is a valid container path, else a message saying what is wrong (never echoing the value). */
export function validateContainer(container: unknown): string | null {
  if (typeof container !== 'string') return 'A container must be a string';
  if (!container.startsWith('/') || !container.endsWith('/')) return 'A container must start and end with "/"';
  if (!CONTAINER.test(container)) {
    return 'A container is made of non-empty segments of letters, digits, "-" and "_", each followed by "/"';
  }
  return null;
}

/** The stored form of a valid container. */
export function normalizeContainer(container: string): string {
  return container.toLowerCase();
}
