import { Fragment, type ReactNode } from 'react';
import type { ResourceState } from '../state/resource-store';
import { useApplicationsStore } from '../state/applications-store';
import type { EditorEvents } from './definition-form';
import { DefinitionList, type DefinitionListProps } from './DefinitionList';
import { useGuardedSelection } from './guarded-selection';
import { SplitPane } from './SplitPane';

interface Definition {
  id: string;
  name: string;
  created_at: string;
  modified_at: string | null;
}

/** A resource store of a list of definitions, read on each visit (resource-store.ts): the page reads its value and problem. */
interface ListStore<V> {
  <T>(selector: (state: Pick<ResourceState<V[]>, 'value' | 'problem'>) => T): T;
  useRefreshed(): void;
}

/**
 * A page of definitions (proxies, reactors): the list beside the one chosen, edited as a form (`editor`), and under
 * it what the chosen one offers (`panels`: its snippet, its Try). Choosing another with changes unsaved asks first.
 */
export function DefinitionPage<V extends Definition>({
  store,
  list,
  editor,
  panels,
}: {
  store: ListStore<V>;
  list: Omit<DefinitionListProps<V>, 'items' | 'problem' | 'selected' | 'onSelect'>;
  /** The form of the chosen definition (null: a new one). */
  editor: (selected: V | null, events: EditorEvents<V>) => ReactNode;
  panels: (selected: V) => ReactNode;
}) {
  store.useRefreshed();
  useApplicationsStore.useRefreshed();
  const items = store((state) => state.value);
  const problem = store((state) => state.problem);
  const selection = useGuardedSelection();
  const selected = items?.find((item) => item.id === selection.selectedId) ?? null;
  const one = list.one;
  return (
    <SplitPane
      label={`Resize the ${one} list`}
      storageKey={`tokenbench.${list.plural.toLowerCase()}.split`}
      initial={0.34}
      start={<DefinitionList {...list} items={items} problem={problem} selected={selected?.id ?? null} onSelect={selection.select} />}
      end={
        <div className="proxy-pane">
          <section className="panel">
            {selection.saidLine}
            {/* A saved change starts the form again from what the engine kept. */}
            <Fragment key={selection.formKey(selected)}>
              {editor(selected, { onSaved: (saved, done) => selection.saved(saved.id, done), onDeleted: selection.deleted, onChanged: selection.onChanged })}
            </Fragment>
            {selection.discardDialog(selected ? `${one} “${selected.name}”` : `the new ${one}`)}
          </section>
          {selected && panels(selected)}
        </div>
      }
    />
  );
}
