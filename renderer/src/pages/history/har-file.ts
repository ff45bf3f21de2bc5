import type { HarPage } from '../../../../shared/workbench/history-contract';

/** Where an entry's lines start in the file: inside `log.entries`, as `JSON.stringify(har, null, 2)` indents them. */
const ENTRY_LINE = '\n      ';

/**
 * A HAR file made from the pages of an export as they arrive: each page becomes a part of a Blob at once, so the
 * page never holds the whole file as one string. The text is what `JSON.stringify(har, null, 2)` writes for the
 * whole document. Pages come newest first, each listing its entries oldest first; the file lists the oldest first.
 */
export class HarFile {
  /** Newest page first. */
  private readonly pages: Blob[] = [];
  private log: Omit<HarPage['log'], 'entries'> | null = null;
  entries = 0;

  add({ log: { entries, ...head } }: HarPage): void {
    this.log ??= head;
    if (entries.length === 0) return;
    this.pages.push(new Blob([entries.map((entry) => ENTRY_LINE + JSON.stringify(entry, null, 2).replaceAll('\n', ENTRY_LINE)).join(',')]));
    this.entries += entries.length;
  }

  blob(type: string): Blob {
    // The document with no entries, cut where they go: `entries` is the last field of `log`, so its `[]` is the last.
    const empty = JSON.stringify({ log: { ...this.log, entries: [] } }, null, 2);
    const at = empty.lastIndexOf('[]') + 1;
    const parts: BlobPart[] = [empty.slice(0, at)];
    for (const [i, page] of [...this.pages].reverse().entries()) parts.push(...(i === 0 ? [page] : [',', page]));
    if (this.pages.length > 0) parts.push('\n    ');
    parts.push(empty.slice(at));
    return new Blob(parts, { type });
  }
}
