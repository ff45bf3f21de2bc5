import { readFileSync, writeFileSync } from 'node:fs';

/** Peak resident set size of `pid` in bytes (VmHWM), since it started or since `resetPeakRss`; null without /proc. */
export function peakRssBytes(pid: number): number | null {
  try {
    const kib = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return kib ? Number(kib[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/**
 * Sets the peak back to the current RSS (Linux ≥ 4.0: "5" into clear_refs), so the next reading is the peak of
 * what ran in between. False where that is not allowed: the next reading is then the peak since the start.
 */
export function resetPeakRss(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}
