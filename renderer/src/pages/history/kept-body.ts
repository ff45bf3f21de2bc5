/** The body as History kept it, as text: as sent (proxy bodies keep their expressions), or the recorded JSON. */
export function keptBodyText(body: unknown, notes: string[]): string {
  if (body === undefined || body === null) return '';
  if (typeof body === 'string') return body;
  const kept = body as { text?: unknown; redacted?: unknown };
  if (typeof kept.text === 'string') return kept.text;
  if (kept.text === null) {
    notes.push('The body was not UTF-8 text, which History does not show: write it again.');
    return '';
  }
  if (kept.redacted !== undefined) {
    notes.push('History kept no copy of this body (it held token data): write it again.');
    return '';
  }
  notes.push('Token data in the body is masked as History keeps it: put the values (or expressions) back before sending.');
  return JSON.stringify(body, null, 2);
}
