import { THEME_CHOICES, useThemeStore } from '../state/theme-store';
import '../components/components.css';

const LABELS = { system: 'System', light: 'Light', dark: 'Dark' } as const;

/** Light, dark, or whatever the operating system uses: one choice, remembered. */
export function ThemeSwitch() {
  const choice = useThemeStore((state) => state.choice);
  const choose = useThemeStore((state) => state.choose);
  return (
    <fieldset className="theme-switch">
      <legend>Theme</legend>
      <div className="segments">
        {THEME_CHOICES.map((option) => (
          <label key={option}>
            <input type="radio" name="theme" value={option} checked={choice === option} onChange={() => choose(option)} />
            {LABELS[option]}
          </label>
        ))}
      </div>
    </fieldset>
  );
}
