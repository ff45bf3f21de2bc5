import { useState, type ReactNode } from 'react';
import type { EngineSettings } from '../../../../shared/workbench/settings-contract';
import { Alert } from '../../components/Alert';
import { useSettingsStore } from '../../state/settings-store';
/** One adjustable setting as the engine reports it: its value now, default, what is saved, and a start flag's hold. */
export interface SettingState<V> {
  value: V;
  default: V;
  stored: V | null;
  pinnedBy: string | null;
}

/** What a numeric setting's row says: its label and unit, the current value in words, and how the hosted service compares. */
export interface NumberSetting {
  label: string;
  unit: string;
  min: number;
  words: (value: number) => string;
  beside: string;
}

/** Beside a setting a start flag set: the flag wins, and what Settings saved waits until the engine starts without it. */
export function Pinned({ setting }: { setting: SettingState<number | boolean> }) {
  if (setting.pinnedBy === null) return null;
  return (
    <p className="limit-pinned">
      Set by <code>{setting.pinnedBy}</code> at start, which wins over Settings until the engine starts without it
      {setting.stored === null ? '.' : `; saved here: ${String(setting.stored)}.`}
    </p>
  );
}

/** The draft of one numeric setting: its text as typed, so an empty or half-typed field is not a number yet. */
export function NumberRow({ spec, setting, text, onText }: { spec: NumberSetting; setting: SettingState<number>; text: string; onText: (text: string) => void }) {
  return (
    <div className="limit">
      <label className="limit-field">
        <span className="limit-label">{spec.label}</span>
        <input type="number" min={spec.min} value={text} disabled={setting.pinnedBy !== null} onChange={(event) => onText(event.target.value)} />
        <span className="muted">{spec.unit}</span>
      </label>
      <p className="muted limit-meaning">
        Now {spec.words(setting.value)}. Default {setting.default.toLocaleString('en')}. {spec.beside}
      </p>
      <Pinned setting={setting} />
    </div>
  );
}

/** The draft of one on/off setting, with what it means (`children`) and a start flag's hold. */
export function CheckboxRow({ label, setting, checked, onChange, children }: { label: string; setting: SettingState<boolean>; checked: boolean; onChange: (checked: boolean) => void; children: ReactNode }) {
  return (
    <div className="limit">
      <label className="limit-field">
        <input type="checkbox" checked={checked} disabled={setting.pinnedBy !== null} onChange={(event) => onChange(event.target.checked)} />
        <span className="limit-label">{label}</span>
      </label>
      <p className="muted limit-meaning">{children}</p>
      <Pinned setting={setting} />
    </div>
  );
}

/** The numbers whose text differs from the engine's value, as a change to send: nothing a start flag set (the engine refuses those). */
export function changedNumbers<Name extends string>(texts: Record<Name, string>, settings: Record<Name, SettingState<number | boolean>>): Partial<Record<Name, number>> {
  const changed = (Object.keys(texts) as Name[]).filter((name) => settings[name].pinnedBy === null && texts[name] !== String(settings[name].value));
  return Object.fromEntries(changed.map((name) => [name, texts[name].trim() === '' ? Number.NaN : Number(texts[name])])) as Partial<Record<Name, number>>;
}

/** Every setting of a group no start flag holds, set back to its default (null). */
export function backToDefaults<Name extends string>(settings: Record<Name, SettingState<unknown>>): Partial<Record<Name, null>> {
  return Object.fromEntries((Object.keys(settings) as Name[]).filter((name) => settings[name].pinnedBy === null).map((name) => [name, null])) as Partial<Record<Name, null>>;
}

/** The end of a settings form: apply what was typed, or set every setting no flag holds back to its default. */
export function ApplyActions({ busy, problem, onDefaults }: { busy: boolean; problem: string | null; onDefaults: () => void }) {
  return (
    <>
      <div className="settings-actions">
        <button type="submit" className="primary" disabled={busy}>
          Apply
        </button>
        <button type="button" disabled={busy} onClick={onDefaults}>
          Back to the defaults
        </button>
      </div>
      <Alert message={problem} />
    </>
  );
}

/** How a settings action ended: what it did (a polite status line, kept in place so it is announced) or why it failed. */
export function ActionOutcome({ done, problem }: { done: string | null; problem: string | null }) {
  return (
    <>
      <p role="status" className="muted">
        {done}
      </p>
      <Alert message={problem} />
    </>
  );
}

/**
 * A section of settings the engine applies at once: its form, started from the engine's values once they are read
 * (the caller keys it by them, so every change the engine confirms restarts it), and a status line once applied.
 */
export function AppliedSettingsSection({
  id,
  title,
  hint,
  reading,
  applied,
  form,
  children,
}: {
  id: string;
  title: string;
  hint: ReactNode;
  /** Said until the engine's values arrive. */
  reading: string;
  /** Said once the engine has applied a change. */
  applied: string;
  form: (settings: EngineSettings, onApplied: (applied: boolean) => void) => ReactNode;
  children?: ReactNode;
}) {
  const settings = useSettingsStore((state) => state.value);
  const problem = useSettingsStore((state) => state.problem);
  const [done, setDone] = useState(false);
  return (
    <section className="panel settings-section" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      <p className="muted settings-hint">{hint}</p>
      <Alert message={problem} />
      {settings ? form(settings, setDone) : <p className="muted">{reading}</p>}
      <p role="status" className="muted">
        {done ? applied : ''}
      </p>
      {children}
    </section>
  );
}
