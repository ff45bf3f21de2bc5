/**
 * A small choice the user makes once and expects kept (the theme, a split, a fold), in this browser profile's storage.
 * What was stored is read back only when `parse` accepts it; storage that is full or turned off keeps the choice for
 * this session only, never breaking the page.
 */
export function storedPreference<T>(key: string, parse: (stored: string) => T | undefined, format: (value: T) => string = String) {
  return {
    read(): T | undefined {
      try {
        const stored = window.localStorage.getItem(key);
        return stored === null ? undefined : parse(stored);
      } catch {
        return undefined;
      }
    },
    write(value: T): void {
      try {
        window.localStorage.setItem(key, format(value));
      } catch {
        // Kept in the page's state for this session; nothing else to do.
      }
    },
  };
}
