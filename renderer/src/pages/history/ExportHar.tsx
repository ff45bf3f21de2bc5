import type { RequestInput } from '../../../../shared/workbench/methods';
import { useEngineCall } from '../../api/engine-call';
import { useWorkbenchApi } from '../../api/workbench-api-context';
import { Alert } from '../../components/Alert';
import { downloadFile, stampedName } from '../../components/download';

/** Saves requests from the history as a HAR file, masked as History keeps them, for other tools to import. */
export function ExportHar({ request, label }: { request: RequestInput<'exportHar'>; label: string }) {
  const api = useWorkbenchApi();
  const { busy, problem, run } = useEngineCall();
  const save = () =>
    run(async () => downloadFile(stampedName('history', 'har'), JSON.stringify(await api.exportHar(request), null, 2), 'application/json'));
  return (
    <>
      <button type="button" className="small" disabled={busy} onClick={() => void save()}>
        {label}
      </button>
      <Alert message={problem} />
    </>
  );
}
