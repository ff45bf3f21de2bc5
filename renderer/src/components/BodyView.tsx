import type { ReactNode } from 'react';
import { formatBytes } from './format';
import './components.css';

/** The same syntax the engine detokenizes; here only to highlight where an expression sits. */
const EXPRESSION = /\{\{[\s\S]*?\}\}/g;

/** Text with each `{{ … }}` marked, so the reader sees at once what the proxy replaces. */
function withExpressions(text: string) {
  const parts: ReactNode[] = [];
  let last = 0;
  for (const match of text.matchAll(EXPRESSION)) {
    parts.push(text.slice(last, match.index));
    parts.push(
      <mark key={match.index} className="expression">
        {match[0]}
      </mark>,
    );
    last = match.index + match[0].length;
  }
  parts.push(text.slice(last));
  return parts;
}

/** A body history kept as bytes: its size, and its text (null when it is not UTF-8) or first part of it. */
interface KeptText {
  bytes: number;
  text: string | null;
}

const isKeptText = (body: unknown): body is KeptText =>
  typeof body === 'object' && body !== null && typeof (body as KeptText).bytes === 'number' && 'text' in body;

const utf8Length = (text: string) => new TextEncoder().encode(text).length;

/** The text of a body as history keeps it (kept bytes, or a value recorded as JSON); null for none, or one that is not UTF-8. */
export function keptTextOf(body: unknown): string | null {
  if (body === undefined || body === null) return null;
  if (isKeptText(body)) return body.text;
  return typeof body === 'string' ? body : JSON.stringify(body);
}

/** Whether history kept only the first part of this request body (its text is shorter than the body was). */
export const keptPartOnly = (body: unknown): boolean => isKeptText(body) && body.text !== null && utf8Length(body.text) < body.bytes;

/**
 * A request or outbound body as history keeps it: text as sent (expressions highlighted), or a value the engine
 * recorded as JSON (already masked). `bytes`: the whole body's size, when history kept only its first part.
 */
export function BodyView({ body, bytes, testId }: { body: unknown; bytes?: number; testId: string }) {
  if (body === undefined || body === null) return <p className="muted">No body.</p>;
  if (isKeptText(body)) {
    if (body.text !== null) return <BodyView body={body.text} bytes={body.bytes} testId={testId} />;
    return (
      <p className="muted" data-testid={testId}>
        {formatBytes(body.bytes)} that are not UTF-8 text (a binary upload?): not shown.
      </p>
    );
  }
  const text = typeof body === 'string' ? body : JSON.stringify(body, null, 2);
  const shown = utf8Length(text);
  return (
    <>
      {bytes !== undefined && bytes > shown && (
        <p className="muted" data-testid={`${testId}-cut`}>
          The first {formatBytes(shown)} of {formatBytes(bytes)}: history keeps the beginning of large bodies.
        </p>
      )}
      <pre className="body" data-testid={testId}>
        {withExpressions(text)}
      </pre>
    </>
  );
}
