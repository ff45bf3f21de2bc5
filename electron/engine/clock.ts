/**
 * The current time as ISO 8601 (UTC, milliseconds), made at most once per millisecond: a request stamps it several
 * times (expiry checks in the vault, its history entry), and formatting a Date each time is a noticeable part of a
 * cheap request.
 */
let lastMs = Number.NaN;
let lastIso = '';

export function nowIso(): string {
  const now = Date.now();
  if (now !== lastMs) {
    lastMs = now;
    lastIso = new Date(now).toISOString();
  }
  return lastIso;
}
