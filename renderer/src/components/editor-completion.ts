import { acceptCompletion, autocompletion, type Completion, insertCompletionText, pickedCompletion } from '@codemirror/autocomplete';
import { Prec, StateField, type Extension } from '@codemirror/state';
import { type EditorView, keymap } from '@codemirror/view';
import { completionInfoPlace } from './completion-place';

/**
 * The list as CodeMirror keeps it (its CompletionDialog): the options on show, the one selected, where the completed
 * word starts, and whether a newer query is running, while the list stays on show greyed out.
 */
interface ShownList {
  options: readonly { completion: Completion }[];
  selected: number;
  disabled: boolean;
  tooltip: { pos: number };
}

/**
 * Enter within CodeMirror's interaction delay of the list opening is taken as a stray key, and so is Enter while the
 * list waits for a query started by the last keystroke: either way it fell through to a newline. A user who sees an
 * option selected means it, so there is no delay.
 */
const completion = autocompletion({ positionInfo: completionInfoPlace, interactionDelay: 0 });

// autocompletion() holds its state field; the public accessors hide a list that waits for a query.
const completionState = (completion as readonly Extension[]).find((part) => part instanceof StateField) as StateField<{ open: ShownList | null }> | undefined;

/** Takes the selected option of the list on show, also while a newer query for it runs; false when no list shows one. */
function acceptShown(view: EditorView): boolean {
  const open = completionState && view.state.field(completionState, false)?.open;
  if (!open || !open.disabled) return acceptCompletion(view);
  if (open.selected < 0) return false;
  const chosen = open.options[open.selected].completion;
  const from = open.tooltip.pos;
  const to = view.state.selection.main.head;
  if (typeof chosen.apply === 'function') chosen.apply(view, chosen, from, to);
  else view.dispatch({ ...insertCompletionText(view.state, chosen.apply ?? chosen.label, from, to), annotations: pickedCompletion.of(chosen) });
  return true;
}

/** The editor's completion: the detail box placed beside or under the list, and Enter taking the option on show. */
export const editorCompletion: Extension = [completion, Prec.highest(keymap.of([{ key: 'Enter', run: acceptShown }]))];
