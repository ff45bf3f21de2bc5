/** How a request body is written, which decides how expression results are encoded into it (docs/api.md, Proxy). */
export type BodyKind = 'json' | 'form' | 'text';

export function bodyKindOf(contentType: string | undefined): BodyKind {
  const mediaType = (contentType ?? '').split(';')[0].trim().toLowerCase();
  if (mediaType === 'application/json' || mediaType === 'text/json' || mediaType.endsWith('+json')) return 'json';
  if (mediaType === 'application/x-www-form-urlencoded') return 'form';
  return 'text';
}
