import { useState } from 'react';
import { DefinitionPage } from '../../components/DefinitionPage';
import { useApplicationsStore } from '../../state/applications-store';
import { useReactorsStore } from '../../state/reactors-store';
import { ReactorEditor } from './ReactorEditor';
import { ReactorFiles } from './ReactorFiles';
import { ReactorSnippet } from './ReactorSnippet';
import { FIRST_ARGS, TryReactor } from './TryReactor';

/**
 * The reactors: the list beside the one chosen, edited as a form, with the code that invokes it and a Try that reacts
 * through the real route and shows the call's trace.
 */
export function ReactorsPage() {
  const [args, setArgs] = useState(FIRST_ARGS);
  const applications = useApplicationsStore((state) => state.value);
  const applicationName = (id: string | null) => (id === null ? '–' : (applications?.find((application) => application.id === id)?.name ?? id));
  return (
    <DefinitionPage
      store={useReactorsStore}
      editor={(reactor, events) => <ReactorEditor reactor={reactor} {...events} />}
      panels={(reactor) => [<ReactorSnippet key="snippet" reactor={reactor} args={args} />, <TryReactor key="try" reactor={reactor} args={args} onArgs={setArgs} />, <ReactorFiles key="files" reactor={reactor} />]}
      list={{
        plural: 'Reactors',
        one: 'reactor',
        hint: 'Code kept under an id: a private application invokes it with args, whose token expressions are detokenized first.',
        columns: ['Runtime', 'Application', 'State'],
        cells: (reactor) => [
          <td key="runtime" className="mono">
            {reactor.runtime?.image ?? 'node-bt'}
          </td>,
          <td key="application">{applicationName(reactor.application_id)}</td>,
          <td key="state">{reactor.state}</td>,
        ],
      }}
    />
  );
}
