import { useState } from 'react';
import type { EngineSettings } from '../../../../shared/workbench/contract';
import { useEngineCall } from '../../api/engine-call';
import { useWorkbenchApi } from '../../api/workbench-api-context';
import { Alert } from '../../components/Alert';
import { formatBytes } from '../../components/format';
import { useSettingsStore } from '../../state/settings-store';

type Limits = EngineSettings['limits'];
type NumberLimit = Exclude<keyof Limits, 'denyPrivateDestinations'>;

const NUMBER_LIMITS: Record<NumberLimit, { label: string; unit: string; words: (value: number) => string; hosted: string }> = {
  proxyTimeoutMs: {
    label: 'Destination timeout',
    unit: 'ms',
    words: (ms) => `${ms / 1000} s for connect, headers and body together; 408 beyond`,
    hosted: 'Hosted service: 25 s, then 408.',
  },
  maxBodyBytes: {
    label: 'Body limit',
    unit: 'bytes',
    words: (bytes) => `${formatBytes(bytes)}; 413 beyond`,
    hosted: 'Hosted service: its limit is not published.',
  },
  maxExpressions: {
    label: 'Expression limit',
    unit: 'per request',
    words: (count) => `${count} token expressions in one /proxy or /detokenize body; 400 beyond`,
    hosted: 'Hosted service: 20. Above 20, History warns of the difference.',
  },
};

/** Beside a limit a start flag set: the flag wins, and what Settings saved waits until the engine starts without it. */
function Pinned({ pinnedBy, stored }: { pinnedBy: string; stored: string | null }) {
  return (
    <p className="limit-pinned">
      Set by <code>{pinnedBy}</code> at start, which wins over Settings until the engine starts without it
      {stored === null ? '.' : `; saved here: ${stored}.`}
    </p>
  );
}

/** The draft of one numeric limit: its text as typed, so an empty or half-typed field is not a number yet. */
function NumberRow({ name, limits, text, onText }: { name: NumberLimit; limits: Limits; text: string; onText: (text: string) => void }) {
  const { label, unit, words, hosted } = NUMBER_LIMITS[name];
  const limit = limits[name];
  return (
    <div className="limit">
      <label className="limit-field">
        <span className="limit-label">{label}</span>
        <input type="number" min={name === 'maxExpressions' ? 0 : 1} value={text} disabled={limit.pinnedBy !== null} onChange={(event) => onText(event.target.value)} />
        <span className="muted">{unit}</span>
      </label>
      <p className="muted limit-meaning">
        Now {words(limit.value)}. Default {limit.default}. {hosted}
      </p>
      {limit.pinnedBy !== null && <Pinned pinnedBy={limit.pinnedBy} stored={limit.stored === null ? null : String(limit.stored)} />}
    </div>
  );
}

/** The form for the four limits, started from the engine's values; every change the engine confirms restarts it (keyed). */
function LimitsForm({ limits, onApplied }: { limits: Limits; onApplied: (applied: boolean) => void }) {
  const api = useWorkbenchApi();
  const loaded = useSettingsStore((state) => state.loaded);
  const [texts, setTexts] = useState<Record<NumberLimit, string>>({
    proxyTimeoutMs: String(limits.proxyTimeoutMs.value),
    maxBodyBytes: String(limits.maxBodyBytes.value),
    maxExpressions: String(limits.maxExpressions.value),
  });
  const [denyPrivate, setDenyPrivate] = useState(limits.denyPrivateDestinations.value);
  const { busy, problem, run } = useEngineCall();
  const edit = <T,>(set: (value: T) => void) => (value: T) => {
    set(value);
    onApplied(false);
  };
  const adjustable = (Object.keys(limits) as (keyof Limits)[]).filter((name) => limits[name].pinnedBy === null);
  // Only what changed, and nothing a start flag set: the engine refuses to change those.
  const change = () => {
    const numbers = (Object.keys(texts) as NumberLimit[]).filter((name) => limits[name].pinnedBy === null && texts[name] !== String(limits[name].value));
    return {
      ...Object.fromEntries(numbers.map((name) => [name, texts[name].trim() === '' ? Number.NaN : Number(texts[name])])),
      ...(limits.denyPrivateDestinations.pinnedBy === null && denyPrivate !== limits.denyPrivateDestinations.value ? { denyPrivateDestinations: denyPrivate } : {}),
    };
  };
  const send = (request: Parameters<typeof api.changeLimits>[0]) =>
    run(async () => {
      const settings = await api.changeLimits(request);
      onApplied(true);
      loaded(settings);
    });
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        void send(change());
      }}
    >
      {(Object.keys(NUMBER_LIMITS) as NumberLimit[]).map((name) => (
        <NumberRow key={name} name={name} limits={limits} text={texts[name]} onText={edit((text: string) => setTexts({ ...texts, [name]: text }))} />
      ))}
      <div className="limit">
        <label className="limit-field">
          <input
            type="checkbox"
            checked={denyPrivate}
            disabled={limits.denyPrivateDestinations.pinnedBy !== null}
            onChange={(event) => edit(setDenyPrivate)(event.target.checked)}
          />
          <span className="limit-label">Refuse private destinations</span>
        </label>
        <p className="muted limit-meaning">
          Loopback, private ranges and this machine’s own addresses; off by default, since local mock servers are the usual destination. Cloud metadata
          addresses and Tokenbench’s own port are refused either way. Hosted service: public https destinations with a DNS name only.
        </p>
        {limits.denyPrivateDestinations.pinnedBy !== null && (
          <Pinned pinnedBy={limits.denyPrivateDestinations.pinnedBy} stored={limits.denyPrivateDestinations.stored === null ? null : String(limits.denyPrivateDestinations.stored)} />
        )}
      </div>
      <div className="settings-actions">
        <button type="submit" className="primary" disabled={busy}>
          Apply
        </button>
        <button type="button" disabled={busy} onClick={() => void send(Object.fromEntries(adjustable.map((name) => [name, null])))}>
          Back to the defaults
        </button>
      </div>
      <Alert message={problem} />
    </form>
  );
}

/** The proxy's limits: changed here, they apply to the next request and are kept in the vault. */
export function ProxySection() {
  const settings = useSettingsStore((state) => state.settings);
  const problem = useSettingsStore((state) => state.problem);
  const [applied, setApplied] = useState(false);
  return (
    <section className="panel settings-section" aria-labelledby="settings-proxy">
      <h2 id="settings-proxy">Proxy</h2>
      <p className="muted settings-hint">Applied without a restart, and kept in the vault for the next start.</p>
      <Alert message={problem} />
      {settings ? <LimitsForm key={JSON.stringify(settings.limits)} limits={settings.limits} onApplied={setApplied} /> : <p className="muted">Reading the limits…</p>}
      <p role="status" className="muted">
        {applied ? 'Applied and saved in the vault: the next request is held to these.' : ''}
      </p>
    </section>
  );
}
