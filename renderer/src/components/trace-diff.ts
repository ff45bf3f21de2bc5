/** What a step of a proxy's pipeline changed, worked out from what it left and what the step before left. */

export type DiffLine = { kind: 'same' | 'added' | 'removed'; text: string };
export type HeaderChange = { kind: 'added' | 'removed' | 'changed'; name: string; before: string | null; after: string | null };

/** Past this many lines a side, the diff is the two texts whole: the line table would cost too much. */
const MOST_LINES = 2000;

/** JSON laid out one member a line, so a diff shows the member that changed; any other text as it is. */
export function diffable(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/** The lines of `before` and `after` in order, each kept, removed or added (longest common subsequence). */
export function lineDiff(before: string, after: string): DiffLine[] {
  const a = diffable(before).split('\n');
  const b = diffable(after).split('\n');
  // A member that only gained or lost the comma after it (a member added or removed after it) is the same member.
  const same = (x: string, y: string) => x.replace(/,$/, '') === y.replace(/,$/, '');
  if (a.length > MOST_LINES || b.length > MOST_LINES) {
    return [...a.map((text): DiffLine => ({ kind: 'removed', text })), ...b.map((text): DiffLine => ({ kind: 'added', text }))];
  }
  // common[i][j]: the longest common run of a[i..] and b[j..].
  const common = Array.from({ length: a.length + 1 }, () => new Uint32Array(b.length + 1));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) common[i][j] = same(a[i], b[j]) ? common[i + 1][j + 1] + 1 : Math.max(common[i + 1][j], common[i][j + 1]);
  }
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (same(a[i], b[j])) {
      out.push({ kind: 'same', text: b[j] });
      i++;
      j++;
    } else if (common[i + 1][j] >= common[i][j + 1]) out.push({ kind: 'removed', text: a[i++] });
    else out.push({ kind: 'added', text: b[j++] });
  }
  while (i < a.length) out.push({ kind: 'removed', text: a[i++] });
  while (j < b.length) out.push({ kind: 'added', text: b[j++] });
  return out;
}

/** Headers added, removed or given another value, by name in any case (repeats joined as a client would read them). */
export function headerChanges(before: readonly (readonly [string, string])[], after: readonly (readonly [string, string])[]): HeaderChange[] {
  const byName = (headers: readonly (readonly [string, string])[]) => {
    const map = new Map<string, { name: string; value: string }>();
    for (const [name, value] of headers) {
      const known = map.get(name.toLowerCase());
      map.set(name.toLowerCase(), known ? { name: known.name, value: `${known.value}, ${value}` } : { name, value });
    }
    return map;
  };
  const was = byName(before);
  const now = byName(after);
  const changes: HeaderChange[] = [];
  for (const [key, { name, value }] of now) {
    const old = was.get(key);
    if (!old) changes.push({ kind: 'added', name, before: null, after: value });
    else if (old.value !== value) changes.push({ kind: 'changed', name, before: old.value, after: value });
  }
  for (const [key, { name, value }] of was) if (!now.has(key)) changes.push({ kind: 'removed', name, before: value, after: null });
  return changes;
}
