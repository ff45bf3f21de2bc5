import { useThemeStore, type ThemeChoice } from '../state/theme-store';

const prefersDark = window.matchMedia('(prefers-color-scheme: dark)');

function apply(choice: ThemeChoice): void {
  const dark = choice === 'dark' || (choice === 'system' && prefersDark.matches);
  document.documentElement.dataset.theme = dark ? 'dark' : 'light';
}

/** Keeps `<html data-theme>` on the chosen theme, and on the system's while the choice is `system`. Before the first render, so no page flashes in the other theme. */
export function startTheme(): void {
  apply(useThemeStore.getState().choice);
  useThemeStore.subscribe(({ choice }) => apply(choice));
  prefersDark.addEventListener('change', () => apply(useThemeStore.getState().choice));
}
