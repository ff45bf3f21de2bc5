import { useState } from 'react';
import type { RequestInput } from '../../../../shared/workbench/methods';
import { useEngineCall } from '../../api/engine-call';
import { useWorkbenchApi } from '../../api/workbench-api-context';
import { Alert } from '../../components/Alert';
import { downloadFile, stampedName } from '../../components/download';
import { HarFile } from './har-file';

/** As many requests as the history keeps by default: the newest this many go in one file. */
const MAX_EXPORTED = 10_000;

/**
 * Saves requests from the history as a HAR file, masked as History keeps them, for other tools to import. The engine
 * answers a page at a time, so a large export never holds it (or another client) up, and the page says how far it is.
 */
export function ExportHar({ request, label }: { request: RequestInput<'exportHar'>; label: string }) {
  const api = useWorkbenchApi();
  const { busy, problem, run } = useEngineCall();
  const [note, setNote] = useState('');
  const save = () =>
    run(async () => {
      const file = new HarFile();
      let before: string | undefined;
      try {
        do {
          const page = await api.exportHar({ ...request, before });
          file.add(page);
          before = page.next ?? undefined;
          if (before !== undefined) setNote(`Exporting… ${file.entries.toLocaleString()} requests so far`);
        } while (before !== undefined && file.entries < MAX_EXPORTED);
      } finally {
        setNote('');
      }
      if (before !== undefined) setNote(`Saved the newest ${file.entries.toLocaleString()} requests; filter by time for older ones.`);
      downloadFile(stampedName('history', 'har'), file.blob('application/json'), 'application/json');
    });
  return (
    <>
      <span className="export-har">
        <span role="status" className="muted export-note">
          {note}
        </span>
        <button type="button" className="small" disabled={busy} onClick={() => void save()}>
          {label}
        </button>
      </span>
      <Alert message={problem} />
    </>
  );
}
