/** Sizes and durations as the workbench writes them. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

const counter = new Intl.NumberFormat();
/** A count as the user's locale writes it (`2,034`). */
export const formatCount = (n: number): string => counter.format(n);
/** A count with its noun: `1 token`, `2,034 tokens`. */
export const plural = (n: number, one: string, many: string): string => `${formatCount(n)} ${n === 1 ? one : many}`;

const listing = new Intl.ListFormat('en', { type: 'conjunction' });
/** Names in a sentence: `A`, `A and B`, `A, B, and C`. */
export const wordList = (items: readonly string[]): string => listing.format(items);

export const formatMs = (ms: number | null): string => (ms === null ? '–' : `${ms.toFixed(1)} ms`);

const twoDigits = (n: number) => String(n).padStart(2, '0');

/** Time left as a clock shows it (`59:07`, `1:00:00`), rounded up so it reads 0:00 only once the time is up. */
export function formatCountdown(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = total % 60;
  return hours > 0 ? `${hours}:${twoDigits(minutes)}:${twoDigits(seconds)}` : `${minutes}:${twoDigits(seconds)}`;
}

/** A lifetime in words: `1 hour`, `90 seconds`, `2 minutes`. */
export function formatDuration(seconds: number): string {
  const unit = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  if (seconds % 3600 === 0) return unit(seconds / 3600, 'hour');
  if (seconds % 60 === 0) return unit(seconds / 60, 'minute');
  return unit(seconds, 'second');
}

/** The line of a text an offset falls on, counted from 1, as the editor numbers them. */
export function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return line;
}
