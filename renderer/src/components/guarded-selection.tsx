import { useCallback, useRef, useState, type ReactNode } from 'react';
import { ConfirmDialog } from './ConfirmDialog';

/**
 * A list page's choice of the one definition its form edits (a proxy, a reactor), guarded: choosing another (or a new
 * one) while the form holds changes not saved asks before it drops them. Also the sentence the last save or delete
 * said, and the form's key, which starts the form again from what the engine kept after each save.
 */
export function useGuardedSelection() {
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const [said, setSaid] = useState<string | null>(null);
  const changed = useRef(false);
  const onChanged = useCallback((now: boolean) => void (changed.current = now), []);
  const [leaving, setLeaving] = useState<{ to: string | null } | null>(null);
  // Counts the new definitions begun: "New …" on a new form starts an empty one.
  const [begun, setBegun] = useState(0);
  const show = (id: string | null) => {
    changed.current = false;
    if (id === null) setBegun((n) => n + 1);
    setSelectedId(id);
    setSaid(null);
  };
  return {
    selectedId,
    onChanged,
    select(id: string | null) {
      if (id === selectedId && id !== null) return;
      if (changed.current) setLeaving({ to: id });
      else show(id);
    },
    /** The form's key: a saved change gives the chosen definition a new one. */
    formKey: (selected: { id: string; created_at: string; modified_at: string | null } | null) => (selected ? `${selected.id}@${selected.modified_at ?? selected.created_at}` : `new-${begun}`),
    /** After a save: the saved definition stays chosen, and the page says what happened. */
    saved(id: string, done: string) {
      setSelectedId(id);
      setSaid(done);
    },
    deleted(done: string) {
      setSelectedId(null);
      setSaid(done);
    },
    /** What the last save or delete said, as a status line. */
    saidLine: said && (
      <p className="status-ok proxy-said" role="status">
        {said}
      </p>
    ),
    /** The question before unsaved changes go, while one is asked; `what` names them ("proxy “charges”"). */
    discardDialog: (what: string): ReactNode =>
      leaving && (
        <ConfirmDialog
          title={`Discard your changes to ${what}?`}
          confirm="Discard changes"
          keep="Keep editing"
          busy={false}
          problem={null}
          onConfirm={() => {
            setLeaving(null);
            show(leaving.to);
          }}
          onClose={() => setLeaving(null)}
        >
          <p>They are not saved: the engine keeps it as it was. Keep editing to save them first ({'Ctrl+S'}).</p>
        </ConfirmDialog>
      ),
  };
}
