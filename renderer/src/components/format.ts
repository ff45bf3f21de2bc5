/** Sizes and durations as the workbench writes them. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

export const formatMs = (ms: number | null): string => (ms === null ? '–' : `${ms.toFixed(1)} ms`);
