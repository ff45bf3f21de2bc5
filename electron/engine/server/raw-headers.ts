/** Flat raw header pairs (name, value, name, value…, as Node and undici give them) less the names in `names` (lower-case). */
export function withoutHeaders(headers: readonly string[], names: ReadonlySet<string>): string[] {
  const kept: string[] = [];
  for (let i = 0; i < headers.length; i += 2) if (!names.has(headers[i].toLowerCase())) kept.push(headers[i], headers[i + 1]);
  return kept;
}
