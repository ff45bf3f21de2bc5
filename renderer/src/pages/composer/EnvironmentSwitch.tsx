import { useEngineCall } from '../../api/engine-call';
import { useWorkbenchApi } from '../../api/workbench-api-context';
import { useEnvironmentsStore } from '../../state/environments-store';
import { openPage } from '../../state/route';

const NONE = '';

/**
 * Which environment the request's `${env:…}` references are read from, beside who it is sent as, and the way to edit them. The
 * engine remembers the choice for the collections folder; the flags below the request name any variable it leaves unset.
 */
export function EnvironmentSwitch() {
  const api = useWorkbenchApi();
  const view = useEnvironmentsStore((state) => state.value);
  const choosing = useEngineCall();
  useEnvironmentsStore.useRefreshed();
  const usable = view?.environments.filter((environment) => environment.variables !== null) ?? [];
  const missing = view?.active && !usable.some((environment) => environment.name === view.active) ? view.active : null;
  const choose = (name: string) =>
    void choosing.run(async () => useEnvironmentsStore.getState().loaded(await api.setActiveEnvironment({ name: name === NONE ? null : name })));
  return (
    <span className="environment-switch">
      <label>
        Environment
        <select
          title={choosing.problem ?? 'Where ${env:…} references are read from'}
          value={view?.active ?? NONE}
          disabled={!view || choosing.busy}
          onChange={(event) => choose(event.target.value)}
        >
          <option value={NONE}>No environment</option>
          {usable.map((environment) => (
            <option key={environment.name} value={environment.name}>
              {environment.name}
            </option>
          ))}
          {missing && <option value={missing}>{missing} (not in the folder)</option>}
        </select>
      </label>
      <button type="button" className="small" aria-label="Edit environments" title="Edit environments (Settings)" onClick={() => openPage('settings?section=environments')}>
        ✎
      </button>
    </span>
  );
}
