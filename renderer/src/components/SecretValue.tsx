import { CopyButton } from './CopyButton';
import './components.css';

interface SecretValueProps {
  /** What it is ("New key of Checkout"): the group's name, and the copy button's. */
  label: string;
  value: string;
  /** Why it is shown, and for how long. */
  note?: string;
  /** The user has what they need: the caller drops the value. */
  onDone?: () => void;
}

/** A secret shown for the user to copy (a key just made): set apart, in full, with Copy beside it. */
export function SecretValue({ label, value, note, onDone }: SecretValueProps) {
  return (
    <div className="secret" role="group" aria-label={label}>
      <span className="secret-label">{label}</span>
      <div className="secret-line">
        <code className="secret-value">{value}</code>
        <CopyButton text={value} label={`Copy ${label.charAt(0).toLowerCase()}${label.slice(1)}`} />
        {onDone && (
          <button type="button" className="small" onClick={onDone}>
            Done
          </button>
        )}
      </div>
      {note && <p className="muted secret-note">{note}</p>}
    </div>
  );
}
