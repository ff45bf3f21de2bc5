import { useId, useState } from 'react';
import type { SeedReportView } from '../../../../shared/workbench/vault-contract';
import { useEngineCall } from '../../api/engine-call';
import { useWorkbenchApi } from '../../api/workbench-api-context';
import { Alert } from '../../components/Alert';
import { refreshApplicationDetails } from '../../state/application-details-store';
import { ActionOutcome } from './SettingFields';

const SEED_FILE_NAME = 'tokenbench-seed.json';

/** Hands the browser a file to save; the content never enters the page's DOM. */
function download(name: string, content: string): void {
  const url = URL.createObjectURL(new Blob([content], { type: 'application/json' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.click();
  // After the click has handed the file over.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

/** The applications and rules as a seed file; the tokens' plaintext only when the user ticks for it, warned. */
export function ExportSeed() {
  const api = useWorkbenchApi();
  const [withTokens, setWithTokens] = useState(false);
  const [done, setDone] = useState<string | null>(null);
  const { busy, problem, run } = useEngineCall();
  const warningId = useId();
  const exportSeed = () =>
    run(async () => {
      const exported = await api.exportSeed({ include_tokens: withTokens });
      download(SEED_FILE_NAME, `${JSON.stringify(exported.seed, null, 2)}\n`);
      const made = exported.keys.filter((key) => key.made).length;
      setDone(
        `Exported ${exported.applications} applications with their export keys` +
          (made > 0 ? ` (${made} made for this export, added here too)` : '') +
          (withTokens ? `, and ${exported.tokens} tokens with their data.` : '.') +
          ' History records the export.',
      );
      await refreshApplicationDetails(api);
    });
  return (
    <div className="danger-item">
      <h3>Export a seed file</h3>
      <p className="muted settings-hint">
        The applications and their rules, as <code>serve --seed</code> reads them. Keys are kept only as hashes, so the file carries each
        application’s export key: made on the first export (listed with its keys here), the same in every export after, and made anew once
        revoked. The file’s keys work on this vault and on any vault seeded from it.
      </p>
      <label className="danger-choice">
        <input type="checkbox" checked={withTokens} onChange={(event) => setWithTokens(event.target.checked)} aria-describedby={withTokens ? warningId : undefined} />
        Include the tokens, with their data
      </label>
      {withTokens && (
        <p className="problem" id={warningId}>
          The file will hold every token’s data in plaintext (card numbers and all). Keep it as you would keep the vault, and out of version control.
        </p>
      )}
      <button type="button" className={withTokens ? 'danger' : undefined} disabled={busy} onClick={() => void exportSeed()}>
        {withTokens ? 'Export with token data' : 'Export seed file'}
      </button>
      <ActionOutcome done={done} problem={problem} />
    </div>
  );
}

function ReportList({ title, entries, className }: { title: string; entries: string[]; className?: string }) {
  if (entries.length === 0) return null;
  return (
    <>
      <h4 className={className}>
        {title} ({entries.length})
      </h4>
      <ul className="seed-report" aria-label={title}>
        {entries.map((entry) => (
          <li key={entry}>{entry}</li>
        ))}
      </ul>
    </>
  );
}

/** A seed file read against the vault first: what it would create, leave alone and skip as a conflict; then applied. */
export function ImportSeed() {
  const api = useWorkbenchApi();
  const [seed, setSeed] = useState<unknown>(undefined);
  const [report, setReport] = useState<SeedReportView | null>(null);
  const [applied, setApplied] = useState(false);
  const { busy, problem, run } = useEngineCall();
  const read = (file: File | undefined) =>
    run(async () => {
      setReport(null);
      setApplied(false);
      setSeed(undefined);
      if (!file) return;
      let parsed: unknown;
      try {
        parsed = JSON.parse(await file.text());
      } catch (error) {
        throw new Error(`${file.name} is not JSON: ${(error as Error).message}`, { cause: error });
      }
      setReport(await api.importSeed({ seed: parsed, apply: false }));
      setSeed(parsed);
    });
  const apply = () =>
    run(async () => {
      setReport(await api.importSeed({ seed, apply: true }));
      setApplied(true);
      await refreshApplicationDetails(api);
    });
  return (
    <div className="danger-item">
      <h3>Import a seed file</h3>
      <p className="muted settings-hint">
        Read first, changed only when you apply it. An application is matched by its key, a token by its id; an entry that exists otherwise is a
        conflict and is skipped, never merged.
      </p>
      <input type="file" accept="application/json,.json" aria-label="Seed file to import" onChange={(event) => void read(event.target.files?.[0])} />
      <Alert message={problem} />
      {report && (
        <div className="seed-result" role="group" aria-label={applied ? 'Seed applied' : 'What the seed would do'}>
          <p>
            {applied
              ? `Applied: ${report.created.length} created.`
              : `It would create ${report.created.length}, leave ${report.unchanged.length} as they are, and skip ${report.conflicts.length} in conflict.`}
          </p>
          <ReportList title="Conflicts, skipped" entries={report.conflicts} className="status-warn" />
          <ReportList title={applied ? 'Created' : 'To create'} entries={report.created} />
          <ReportList title="Already so" entries={report.unchanged} />
          {!applied && (
            <button type="button" className="primary" disabled={busy || report.created.length === 0} onClick={() => void apply()}>
              Apply the seed
            </button>
          )}
        </div>
      )}
    </div>
  );
}
