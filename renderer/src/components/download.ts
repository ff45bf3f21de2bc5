/** Saves a document the page made (as text, or as a Blob made from parts) as a file the user downloads (the desktop app asks where). */
export function downloadFile(name: string, content: string | Blob, type: string): void {
  const url = URL.createObjectURL(content instanceof Blob ? content : new Blob([content], { type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.click();
  // After the click has started the download: the link's address is no use after that.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

/** A file name for what is exported now: `tokenbench-history-2026-11-26T10-43-32.har`. */
export const stampedName = (what: string, extension: string) =>
  `tokenbench-${what}-${new Date().toISOString().slice(0, 19).replace(/:/g, '-')}.${extension}`;
