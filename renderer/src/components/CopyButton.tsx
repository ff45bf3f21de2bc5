import { useEffect, useState } from 'react';
import { copyText } from './clipboard';
import './components.css';

/** How long "Copied" stays beside the button. */
const SAID_FOR_MS = 2000;

/**
 * Copies `text` to the clipboard. The button keeps its name (`label`) and its text (`caption`); what happened is said beside it, politely,
 * so a screen reader hears it and the button never changes width.
 */
export function CopyButton({
  text,
  label,
  caption = 'Copy',
  className = 'small',
  refused = 'Could not copy: select the text and press Ctrl+C',
}: {
  text: string;
  label: string;
  caption?: string;
  className?: string;
  /** What to do when the browser refuses the clipboard; the default suits text the page shows whole. */
  refused?: string;
}) {
  const [said, setSaid] = useState<string | null>(null);
  useEffect(() => {
    if (said === null) return;
    const timer = setTimeout(() => setSaid(null), SAID_FOR_MS);
    return () => clearTimeout(timer);
  }, [said]);
  const copy = () =>
    copyText(text).then(
      () => setSaid('Copied'),
      () => setSaid(refused),
    );
  return (
    <span className="copy">
      <button type="button" className={className} aria-label={label} onClick={() => void copy()}>
        {caption}
      </button>
      <span className="copy-said" role="status">
        {said}
      </span>
    </span>
  );
}
