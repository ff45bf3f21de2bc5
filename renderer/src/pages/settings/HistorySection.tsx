import { useState } from 'react';
import type { EngineSettings } from '../../../../shared/workbench/contract';
import { useEngineCall } from '../../api/engine-call';
import { useWorkbenchApi } from '../../api/workbench-api-context';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { useSettingsStore } from '../../state/settings-store';
import { ActionOutcome, ApplyActions, backToDefaults, changedNumbers, NumberRow, type NumberSetting } from './SettingFields';

type Retention = EngineSettings['retention'];

const RETENTION: Record<keyof Retention, NumberSetting> = {
  historyLimit: {
    label: 'Entries kept',
    unit: 'requests',
    min: 1,
    words: (count) => `the newest ${count.toLocaleString('en')}; the oldest leave first`,
    beside: 'History filters and exports run over all of them.',
  },
  historyMaxAgeDays: {
    label: 'Maximum age',
    unit: 'days',
    min: 0,
    words: (days) => (days === 0 ? 'kept whatever their age (0)' : `older than ${days} ${days === 1 ? 'day' : 'days'} leave`),
    beside: 'Checked every minute and with each new request.',
  },
};

/** The retention form, started from the engine's values; every change the engine confirms restarts it (keyed). */
function RetentionForm({ retention, onApplied }: { retention: Retention; onApplied: (applied: boolean) => void }) {
  const api = useWorkbenchApi();
  const loaded = useSettingsStore((state) => state.loaded);
  const [texts, setTexts] = useState<Record<keyof Retention, string>>({
    historyLimit: String(retention.historyLimit.value),
    historyMaxAgeDays: String(retention.historyMaxAgeDays.value),
  });
  const { busy, problem, run } = useEngineCall();
  const send = (request: Parameters<typeof api.changeRetention>[0]) =>
    run(async () => {
      loaded(await api.changeRetention(request));
      onApplied(true);
    });
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        void send(changedNumbers(texts, retention));
      }}
    >
      {(Object.keys(RETENTION) as (keyof Retention)[]).map((name) => (
        <NumberRow
          key={name}
          spec={RETENTION[name]}
          setting={retention[name]}
          text={texts[name]}
          onText={(text) => {
            setTexts({ ...texts, [name]: text });
            onApplied(false);
          }}
        />
      ))}
      <ApplyActions busy={busy} problem={problem} onDefaults={() => void send(backToDefaults(retention))} />
    </form>
  );
}

/** Clearing asks first, saying what it removes; what happened is said beside the button. */
function ClearHistory() {
  const api = useWorkbenchApi();
  const [asking, setAsking] = useState(false);
  const [done, setDone] = useState<string | null>(null);
  const { busy, problem, run } = useEngineCall();
  const clear = () =>
    run(async () => {
      const { cleared } = await api.clearHistory();
      setAsking(false);
      setDone(`Cleared: ${cleared.toLocaleString('en')} ${cleared === 1 ? 'entry' : 'entries'} removed.`);
    });
  return (
    <div className="settings-delete">
      <button
        type="button"
        className="danger small"
        onClick={() => {
          setDone(null);
          setAsking(true);
        }}
      >
        Clear history…
      </button>
      {asking && (
        <ConfirmDialog
          title="Clear the whole history?"
          confirm="Clear the whole history"
          busy={busy}
          problem={problem}
          onConfirm={() => void clear()}
          onClose={() => setAsking(false)}
        >
          <p>Every request and change History holds is removed; one entry saying so is kept. There is no undo.</p>
        </ConfirmDialog>
      )}
      <ActionOutcome done={done} problem={null} />
    </div>
  );
}

/** How much request history the engine keeps: applied at once (older entries leave now), kept in the vault; and clearing it. */
export function HistorySection() {
  const settings = useSettingsStore((state) => state.settings);
  const [applied, setApplied] = useState(false);
  return (
    <section className="panel settings-section" aria-labelledby="settings-history">
      <h2 id="settings-history">History</h2>
      <p className="muted settings-hint">What the History page can show. Applied at once, and kept in the vault for the next start.</p>
      {settings ? (
        <RetentionForm key={JSON.stringify(settings.retention)} retention={settings.retention} onApplied={setApplied} />
      ) : (
        <p className="muted">Reading the retention…</p>
      )}
      <p role="status" className="muted">
        {applied ? 'Applied and saved in the vault: History keeps to these from now on.' : ''}
      </p>
      <ClearHistory />
    </section>
  );
}
