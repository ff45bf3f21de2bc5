import { useMemo, useState } from 'react';
import { formatBytes } from './format';
import { JsonTree } from './JsonTree';
import './components.css';
import './body-viewer.css';

/** The first bytes a hex view shows: enough to recognise a format, little enough to render at once. */
const HEX_BYTES = 16 * 1024;
/** A larger JSON answer is shown raw: a tree of it would take too long to build. */
const TREE_MAX_CHARS = 2 * 1024 * 1024;

type View = 'pretty' | 'raw' | 'hex';
const VIEW_LABELS: Record<View, string> = { pretty: 'Pretty', raw: 'Raw', hex: 'Hex' };

function hexDump(bytes: Uint8Array): string {
  const lines: string[] = [];
  for (let at = 0; at < Math.min(bytes.length, HEX_BYTES); at += 16) {
    const row = bytes.subarray(at, at + 16);
    const hex = [...row].map((byte) => byte.toString(16).padStart(2, '0')).join(' ');
    const ascii = [...row].map((byte) => (byte >= 0x20 && byte < 0x7f ? String.fromCharCode(byte) : '.')).join('');
    lines.push(`${at.toString(16).padStart(8, '0')}  ${hex.padEnd(47)}  ${ascii}`);
  }
  return lines.join('\n');
}

function parsedJson(text: string | null): { value: unknown } | null {
  if (text === null || text.length > TREE_MAX_CHARS) return null;
  try {
    return { value: JSON.parse(text) };
  } catch {
    return null;
  }
}

interface BodyViewerProps {
  bytes: Uint8Array;
  /** The body as text, or null when it is not UTF-8. */
  text: string | null;
  /** The whole body's size, when only its first part was kept. */
  totalBytes: number;
  label: string;
}

/** A body shown as received: pretty (a foldable JSON tree), raw text, or hex for anything that is not text. */
export function BodyViewer({ bytes, text, totalBytes, label }: BodyViewerProps) {
  const json = useMemo(() => parsedJson(text), [text]);
  const views: View[] = [...(json ? (['pretty'] as const) : []), ...(text !== null ? (['raw'] as const) : []), 'hex'];
  const [chosen, choose] = useState<View | null>(null);
  const view = chosen !== null && views.includes(chosen) ? chosen : views[0];
  if (totalBytes === 0) return <p className="muted">No body.</p>;
  return (
    <div className="body-viewer">
      <div className="body-views" role="radiogroup" aria-label={`${label}: view`}>
        {views.map((option) => (
          <label key={option}>
            <input type="radio" name={`${label}-view`} checked={view === option} onChange={() => choose(option)} />
            {VIEW_LABELS[option]}
          </label>
        ))}
        {totalBytes > bytes.length && (
          <span className="muted">
            The first {formatBytes(bytes.length)} of {formatBytes(totalBytes)}
          </span>
        )}
      </div>
      {view === 'pretty' && json ? (
        <JsonTree value={json.value} label={label} />
      ) : (
        <pre className="body" aria-label={label}>
          {view === 'raw' ? text : hexDump(bytes)}
          {view === 'hex' && bytes.length > HEX_BYTES && `\n… the first ${formatBytes(HEX_BYTES)} of ${formatBytes(bytes.length)}`}
        </pre>
      )}
    </div>
  );
}
