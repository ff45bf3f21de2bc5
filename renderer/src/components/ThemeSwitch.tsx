import { useId } from 'react';
import { THEME_CHOICES, useThemeStore } from '../state/theme-store';
import './components.css';

const LABELS = { system: 'System', light: 'Light', dark: 'Dark' } as const;

/** Light, dark, or whatever the operating system uses: one choice, remembered. Shown in the sidebar and in Settings. */
export function ThemeSwitch({ className = 'theme-switch' }: { className?: string }) {
  const choice = useThemeStore((state) => state.choice);
  const choose = useThemeStore((state) => state.choose);
  // Each switch its own radio group: two on one page must not share one.
  const name = useId();
  return (
    <fieldset className={className}>
      <legend>Theme</legend>
      <div className="segments">
        {THEME_CHOICES.map((option) => (
          <label key={option}>
            <input type="radio" name={name} value={option} checked={choice === option} onChange={() => choose(option)} />
            {LABELS[option]}
          </label>
        ))}
      </div>
    </fieldset>
  );
}
