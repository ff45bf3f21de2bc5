/** Headers whose values are credentials: the history shows only enough of them to tell two apart. */
function isSecretHeader(name: string, prefix: string): boolean {
  const lower = name.toLowerCase();
  return (
    lower === `${prefix}-api-key` || lower === 'authorization' || lower === 'proxy-authorization' || lower === 'cookie'
  );
}

// ASCII on purpose: one character past Latin-1 (an ellipsis) makes every history entry's JSON a two-byte string,
// twice the bytes to serialize, post to the history worker and convert for SQLite.
const hint = (value: string) => (value.length > 8 ? `...${value.slice(-4)}` : '...');

/** The request's headers as sent, in order, with credentials cut to a hint. */
export function headersForLog(rawHeaders: string[], headerPrefix: string): [string, string][] {
  const prefix = headerPrefix.toLowerCase();
  const out: [string, string][] = [];
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i];
    out.push([name, isSecretHeader(name, prefix) ? hint(rawHeaders[i + 1]) : rawHeaders[i + 1]]);
  }
  return out;
}
