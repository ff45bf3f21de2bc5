import { useState } from 'react';
import type { EngineSettings } from '../../../../shared/workbench/settings-contract';
import { useEngineCall } from '../../api/engine-call';
import { useWorkbenchApi } from '../../api/workbench-api-context';
import { formatBytes } from '../../components/format';
import { useSettingsStore } from '../../state/settings-store';
import { AppliedSettingsSection, ApplyActions, backToDefaults, changedNumbers, CheckboxRow, NumberRow, type NumberSetting } from './SettingFields';

type Limits = EngineSettings['limits'];
type NumberLimit = Exclude<keyof Limits, 'denyPrivateDestinations'>;

const NUMBER_LIMITS: Record<NumberLimit, NumberSetting> = {
  proxyTimeoutMs: {
    label: 'Destination timeout',
    unit: 'ms',
    min: 1,
    words: (ms) => `${ms / 1000} s for connect, headers and body together; 408 beyond`,
    beside: 'Hosted service: 25 s, then 408.',
  },
  maxBodyBytes: {
    label: 'Body limit',
    unit: 'bytes',
    min: 1,
    words: (bytes) => `${formatBytes(bytes)}; 413 beyond`,
    beside: 'Hosted service: its limit is not published.',
  },
  maxExpressions: {
    label: 'Expression limit',
    unit: 'per request',
    min: 0,
    words: (count) => `${count} token expressions in one /proxy or /detokenize body; 400 beyond`,
    beside: 'Hosted service: 20. Above 20, History warns of the difference.',
  },
};

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
  // Only what changed, and nothing a start flag set: the engine refuses to change those.
  const change = () => ({
    ...changedNumbers(texts, limits),
    ...(limits.denyPrivateDestinations.pinnedBy === null && denyPrivate !== limits.denyPrivateDestinations.value ? { denyPrivateDestinations: denyPrivate } : {}),
  });
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
        <NumberRow key={name} spec={NUMBER_LIMITS[name]} setting={limits[name]} text={texts[name]} onText={edit((text: string) => setTexts({ ...texts, [name]: text }))} />
      ))}
      <CheckboxRow label="Refuse private destinations" setting={limits.denyPrivateDestinations} checked={denyPrivate} onChange={edit(setDenyPrivate)}>
        Loopback, private ranges and this machine’s own addresses; off by default, since local mock servers are the usual destination. Cloud metadata addresses
        and Tokenbench’s own port are refused either way. Hosted service: public https destinations with a DNS name only.
      </CheckboxRow>
      <ApplyActions busy={busy} problem={problem} onDefaults={() => void send(backToDefaults(limits))} />
    </form>
  );
}

/** The proxy's limits: changed here, they apply to the next request and are kept in the vault. */
export function ProxySection() {
  return (
    <AppliedSettingsSection
      id="settings-proxy"
      title="Proxy"
      hint="Applied without a restart, and kept in the vault for the next start."
      reading="Reading the limits…"
      applied="Applied and saved in the vault: the next request is held to these."
      form={(settings, onApplied) => <LimitsForm key={JSON.stringify(settings.limits)} limits={settings.limits} onApplied={onApplied} />}
    />
  );
}
