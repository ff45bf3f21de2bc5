import { useEffect, useRef, useState, type ReactNode } from 'react';
import { WorkbenchError } from '../../../shared/workbench/transport';
import { useEngineCall } from '../api/engine-call';
import { Alert } from './Alert';
import { ConfirmDialog } from './ConfirmDialog';
import type { FieldProblems } from './FieldProblem';
import { IS_MAC, shortcutLabel } from './keys';

const NONE: FieldProblems = {};

/** How many problems the engine named, as the sentence above the buttons starts. */
const counted = (problems: FieldProblems) => Object.values(problems).reduce((n, said) => n + said.length, 0);

/** What a definition's editor tells its page: saved (with the sentence to say), deleted, changed or not. */
export interface EditorEvents<V> {
  onSaved: (saved: V, said: string) => void;
  onDeleted: (said: string) => void;
  /** Whether the form now differs from what the engine keeps (or, for a new one, from the form it started as). */
  onChanged: (changed: boolean) => void;
}

/** The refusals no field of the form shows (a path `known` does not match), said once above the buttons. */
export function unplaced(problems: FieldProblems, known: RegExp): string | null {
  const rest = Object.entries(problems).filter(([path]) => !known.test(path));
  return rest.length === 0 ? null : rest.map(([path, said]) => `${path}: ${said.join(' ')}`).join(' ');
}

/** How a definition becomes the form's draft, and the draft the definition to save (or the page's refusals). */
export interface DraftForms<V, Draft, Definition> {
  of: (saved: V | null) => Draft;
  same: (a: Draft, b: Draft) => boolean;
  definition: (draft: Draft) => { definition: Definition } | { problems: FieldProblems };
}

/**
 * A definition's draft as its form edits it, from the saved one (null: a new one), telling the page whether it differs;
 * `submit` saves it (POST or PUT, as `save` chooses), reads the list again and tells the page.
 */
export function useDefinitionDraft<V extends { id: string; name: string }, Draft, Definition>(
  one: string,
  saved: V | null,
  draft: DraftForms<V, Draft, Definition>,
  calls: { save: (definition: Definition) => Promise<V>; refresh: () => Promise<void> },
  { onSaved, onChanged }: Omit<EditorEvents<V>, 'onDeleted'>,
) {
  const [initial] = useState<Draft>(() => draft.of(saved));
  const [current, setCurrent] = useState<Draft>(initial);
  const changed = !draft.same(current, initial);
  useEffect(() => onChanged(changed), [changed, onChanged]);
  const form = useDefinitionForm();
  const submit = () =>
    form.submit(draft.definition(current), async (definition) => {
      const made = await calls.save(definition);
      await calls.refresh();
      onSaved(made, `${saved ? 'Saved' : 'Created'} ${one} “${made.name}”.`);
    });
  return { ...form, draft: current, edit: (patch: Partial<Draft>) => setCurrent((before) => ({ ...before, ...patch })), submit };
}

/**
 * A definition's form (a proxy's, a reactor's), saved whole with Enter on a button or Ctrl+S anywhere in it: what the
 * page or the engine refuses is said at the field it names, and the focus goes to the first.
 */
export function useDefinitionForm() {
  const [problems, setProblems] = useState<FieldProblems>(NONE);
  const saving = useEngineCall();
  const form = useRef<HTMLFormElement>(null);
  // After a refusal, the first field it names takes the focus, so the user reads what is wrong where to fix it.
  useEffect(() => {
    if (problems === NONE) return;
    form.current?.querySelector<HTMLElement>('[aria-invalid="true"], p.problem[id^="field-problem-"]')?.focus();
  }, [problems]);
  return {
    problems,
    saving,
    /** Sends the definition the page made, or says what the page found wrong with it first. */
    submit: <D,>(made: { definition: D } | { problems: FieldProblems }, send: (definition: D) => Promise<void>) =>
      saving.run(async () => {
        if ('problems' in made) return setProblems(made.problems);
        setProblems(NONE);
        try {
          await send(made.definition);
        } catch (error) {
          const said = error instanceof WorkbenchError ? error.problem.errors : undefined;
          if (!said) throw error;
          setProblems(said);
          const n = counted(said);
          throw new Error(`The engine refused ${n === 1 ? 'a field' : `${n} fields`}: each is said where it is. Fix ${n === 1 ? 'it' : 'them'} and save again.`, { cause: error });
        }
      }),
    /** The form element's props: a submit, and Ctrl+S (⌘S), save unless the definition is shown read-only. */
    formProps: (save: () => void, readOnly: boolean) => ({
      ref: form,
      onSubmit(event: { preventDefault(): void }) {
        event.preventDefault();
        if (!readOnly) save();
      },
      onKeyDown(event: { key: string; metaKey: boolean; ctrlKey: boolean; altKey: boolean; shiftKey: boolean; preventDefault(): void }) {
        if (!readOnly && event.key.toLowerCase() === 's' && (IS_MAC ? event.metaKey : event.ctrlKey) && !event.altKey && !event.shiftKey) {
          event.preventDefault();
          save();
        }
      },
    }),
  };
}

/**
 * The form's buttons: save (or create), and delete, which asks first and says in `warning` what goes with it. `name`
 * is the saved definition's, null for a new one.
 */
export function DefinitionActions({
  one,
  name,
  saving,
  warning,
  remove,
  removed,
}: {
  one: string;
  name: string | null;
  saving: { busy: boolean; problem: string | null };
  warning: ReactNode;
  remove: () => Promise<unknown>;
  /** After the delete and the dialog closed: the list read again, and the page told. */
  removed: () => Promise<void>;
}) {
  const [confirming, setConfirming] = useState(false);
  const deleting = useEngineCall();
  return (
    <>
      <Alert message={saving.problem} />
      <div className="proxy-actions">
        <button type="submit" className="primary" disabled={saving.busy} aria-keyshortcuts={IS_MAC ? 'Meta+S' : 'Control+S'}>
          {name === null ? `Create ${one}` : `Save ${one}`} <kbd>{shortcutLabel('S')}</kbd>
        </button>
        {name !== null && (
          <button type="button" className="danger" onClick={() => setConfirming(true)}>
            Delete {one}…
          </button>
        )}
      </div>
      {name !== null && confirming && (
        <ConfirmDialog
          title={`Delete ${one} “${name}”?`}
          confirm={`Delete ${one}`}
          busy={deleting.busy}
          problem={deleting.problem}
          onConfirm={() =>
            void deleting.run(async () => {
              await remove();
              setConfirming(false);
              await removed();
            })
          }
          onClose={() => setConfirming(false)}
        >
          {warning}
        </ConfirmDialog>
      )}
    </>
  );
}
