import { useState } from 'react';
import type { EngineSettings } from '../../../../shared/workbench/settings-contract';
import { useEngineCall } from '../../api/engine-call';
import { useWorkbenchApi } from '../../api/workbench-api-context';
import { formatDuration } from '../../components/format';
import { useSettingsStore } from '../../state/settings-store';
import { AppliedSettingsSection, ApplyActions, backToDefaults, changedNumbers, NumberRow, type NumberSetting } from './SettingFields';

type IntentSettings = EngineSettings['tokenIntents'];

const TIME_TO_LIVE: NumberSetting = {
  label: 'Time to live',
  unit: 'seconds',
  min: 1,
  words: (seconds) => `new intents expire ${formatDuration(seconds)} after they are created`,
  beside: 'From 1 to 172,800 (48 hours, the hosted service’s most); intents made before a change keep their expiry.',
};

/** The form, started from the engine's value; every change the engine confirms restarts it (keyed). */
function TokenIntentsForm({ settings, onApplied }: { settings: IntentSettings; onApplied: (applied: boolean) => void }) {
  const api = useWorkbenchApi();
  const loaded = useSettingsStore((state) => state.loaded);
  const [text, setText] = useState(String(settings.tokenIntentTtlSeconds.value));
  const { busy, problem, run } = useEngineCall();
  const send = (change: Parameters<typeof api.changeTokenIntentTtl>[0]) =>
    run(async () => {
      loaded(await api.changeTokenIntentTtl(change));
      onApplied(true);
    });
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        void send(changedNumbers({ tokenIntentTtlSeconds: text }, settings));
      }}
    >
      <NumberRow
        spec={TIME_TO_LIVE}
        setting={settings.tokenIntentTtlSeconds}
        text={text}
        onText={(typed) => {
          setText(typed);
          onApplied(false);
        }}
      />
      <ApplyActions busy={busy} problem={problem} onDefaults={() => void send(backToDefaults(settings))} />
    </form>
  );
}

/** How long a new token intent lives before it expires (`serve --token-intent-ttl`): applied to the next one, kept in the vault. */
export function TokenIntentsSection() {
  return (
    <AppliedSettingsSection
      id="settings-token-intents"
      title="Token intents"
      hint="What a browser collects with a public key lives this long unless a back end converts or deletes it; the Tokens page lists the live ones."
      reading="Reading the setting…"
      applied="Applied and saved in the vault: new intents live this long from now on."
      form={(settings, onApplied) => <TokenIntentsForm key={JSON.stringify(settings.tokenIntents)} settings={settings.tokenIntents} onApplied={onApplied} />}
    />
  );
}
