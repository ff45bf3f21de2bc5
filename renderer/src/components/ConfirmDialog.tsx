import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { Alert } from './Alert';
import './components.css';

export interface ConfirmDialogProps {
  /** The question, which names what would go: the dialog's accessible name. */
  title: string;
  /** What acting means: what goes with it, what stays, whether it can be undone. */
  children: ReactNode;
  /** The destructive button, named for what it does. */
  confirm: string;
  /** The safe choice, which has the focus. */
  keep?: string;
  /** A word to type before the destructive button acts, for what cannot be undone and takes much with it. */
  word?: string;
  busy: boolean;
  problem: string | null;
  onConfirm: () => void;
  /** Kept: the safe button or Escape. The caller also closes the dialog once its action has succeeded. */
  onClose: () => void;
}

/**
 * The one confirmation before a destructive action: a modal alert dialog over the inert page, the safe choice focused,
 * Escape keeping everything; on closing, the focus goes back to the control that opened it. A failure shows inside, so
 * the user can try again or keep.
 */
export function ConfirmDialog({ title, children, confirm, keep = 'Keep it', word, busy, problem, onConfirm, onClose }: ConfirmDialogProps) {
  const dialog = useRef<HTMLDialogElement>(null);
  const safe = useRef<HTMLButtonElement>(null);
  const [typed, setTyped] = useState('');
  const id = useId();
  useEffect(() => {
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const element = dialog.current;
    element?.showModal();
    safe.current?.focus();
    return () => {
      element?.close();
      if (opener?.isConnected) opener.focus();
    };
  }, []);
  return (
    <dialog
      ref={dialog}
      className="modal confirm-dialog"
      role="alertdialog"
      aria-labelledby={`${id}-title`}
      aria-describedby={`${id}-meaning`}
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
    >
      <h2 id={`${id}-title`}>{title}</h2>
      <div id={`${id}-meaning`} className="confirm-meaning">
        {children}
      </div>
      {word !== undefined && (
        <label className="confirm-word">
          <span>
            Type <code>{word}</code> to confirm
          </span>
          <input type="text" spellCheck={false} autoComplete="off" value={typed} onChange={(event) => setTyped(event.target.value)} />
        </label>
      )}
      <Alert message={problem} />
      <div className="modal-actions">
        <button ref={safe} type="button" onClick={onClose}>
          {keep}
        </button>
        <button type="button" className="danger" disabled={busy || (word !== undefined && typed !== word)} onClick={onConfirm}>
          {confirm}
        </button>
      </div>
    </dialog>
  );
}
