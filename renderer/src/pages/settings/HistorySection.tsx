import { useState } from 'react';
import type { EngineSettings } from '../../../../shared/workbench/settings-contract';
import type { Request } from '../../../../shared/workbench/methods';
import { useEngineCall } from '../../api/engine-call';
import { useWorkbenchApi } from '../../api/workbench-api-context';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { formatBytes } from '../../components/format';
import { useSettingsStore } from '../../state/settings-store';
import { ActionOutcome, AppliedSettingsSection, ApplyActions, backToDefaults, changedNumbers, CheckboxRow, NumberRow, type NumberSetting } from './SettingFields';

type Retention = EngineSettings['retention'];
type Answers = EngineSettings['answers'];
type Logs = EngineSettings['logs'];

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

const ANSWER_BOUND: NumberSetting = {
  label: 'Answer bound',
  unit: 'bytes',
  min: 1024,
  words: (bytes) => `answers up to ${formatBytes(bytes)} are kept, larger ones as a note of their size`,
  beside: 'From 1,024 to 1,048,576; a compressed answer counts once decompressed.',
};

const LOG_RETENTION: NumberSetting = {
  label: 'Log lines kept',
  unit: 'hours',
  min: 1,
  words: (hours) => `GET /logs keeps who did what for ${hours} ${hours === 1 ? 'hour' : 'hours'}`,
  beside: 'From 1 to 720 (30 days); 24 is the hosted service’s. Clearing History leaves these lines alone.',
};

/**
 * The history form, started from the engine's values; every change the engine confirms restarts it (keyed). What it
 * keeps and for how long are two settings of the engine, each changed (and recorded in History) only when it changed.
 */
function HistoryForm({ retention, answers, logs, onApplied }: { retention: Retention; answers: Answers; logs: Logs; onApplied: (applied: boolean) => void }) {
  const api = useWorkbenchApi();
  const loaded = useSettingsStore((state) => state.loaded);
  const [texts, setTexts] = useState<Record<keyof Retention, string>>({
    historyLimit: String(retention.historyLimit.value),
    historyMaxAgeDays: String(retention.historyMaxAgeDays.value),
  });
  const [keepAnswers, setKeepAnswers] = useState(answers.historyAnswers.value);
  const [boundText, setBoundText] = useState(String(answers.historyAnswerBytes.value));
  const [logsText, setLogsText] = useState(String(logs.logRetentionHours.value));
  const { busy, problem, run } = useEngineCall();
  const edited = () => onApplied(false);
  const send = (retentionChange: Request<'changeRetention'>, answersChange: Request<'changeHistoryAnswers'>, logsChange: Request<'changeLogRetention'>) =>
    run(async () => {
      const answersChanged = Object.keys(answersChange).length > 0;
      const logsChanged = Object.keys(logsChange).length > 0;
      // Applying with nothing changed still says so, as the retention always did.
      if (Object.keys(retentionChange).length > 0 || (!answersChanged && !logsChanged)) loaded(await api.changeRetention(retentionChange));
      if (answersChanged) loaded(await api.changeHistoryAnswers(answersChange));
      if (logsChanged) loaded(await api.changeLogRetention(logsChange));
      onApplied(true);
    });
  const answersChange = () => ({
    ...changedNumbers({ historyAnswerBytes: boundText }, { historyAnswerBytes: answers.historyAnswerBytes }),
    ...(answers.historyAnswers.pinnedBy === null && keepAnswers !== answers.historyAnswers.value ? { historyAnswers: keepAnswers } : {}),
  });
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        void send(changedNumbers(texts, retention), answersChange(), changedNumbers({ logRetentionHours: logsText }, logs));
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
            edited();
          }}
        />
      ))}
      <CheckboxRow
        label="Keep destinations’ answers"
        setting={answers.historyAnswers}
        checked={keepAnswers}
        onChange={(checked) => {
          setKeepAnswers(checked);
          edited();
        }}
      >
        Off by default: an answer may hold secrets Tokenbench cannot recognise. When on, each answer to a proxied request is masked before it is written (every
        value the request detokenized, every card number), and History shows it with no way to reveal it.
      </CheckboxRow>
      <NumberRow
        spec={ANSWER_BOUND}
        setting={answers.historyAnswerBytes}
        text={boundText}
        onText={(text) => {
          setBoundText(text);
          edited();
        }}
      />
      <NumberRow
        spec={LOG_RETENTION}
        setting={logs.logRetentionHours}
        text={logsText}
        onText={(text) => {
          setLogsText(text);
          edited();
        }}
      />
      <ApplyActions busy={busy} problem={problem} onDefaults={() => void send(backToDefaults(retention), backToDefaults(answers), backToDefaults(logs))} />
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
          <p>The lines GET /logs reads are not removed: they leave when older than the hours set above.</p>
        </ConfirmDialog>
      )}
      <ActionOutcome done={done} problem={null} />
    </div>
  );
}

/**
 * How much request history the engine keeps, whether it keeps the destinations' answers, and how long the log lines
 * derived from it are kept: applied at once (older entries leave now), kept in the vault; and clearing it.
 */
export function HistorySection() {
  return (
    <AppliedSettingsSection
      id="settings-history"
      title="History"
      hint="What the History page can show, and how long GET /logs keeps its lines. Applied at once, and kept in the vault for the next start."
      reading="Reading the retention…"
      applied="Applied and saved in the vault: History keeps to these from now on."
      form={(settings, onApplied) => (
        <HistoryForm
          key={JSON.stringify([settings.retention, settings.answers, settings.logs])}
          retention={settings.retention}
          answers={settings.answers}
          logs={settings.logs}
          onApplied={onApplied}
        />
      )}
    >
      <ClearHistory />
    </AppliedSettingsSection>
  );
}
