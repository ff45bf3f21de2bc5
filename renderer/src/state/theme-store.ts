import { create } from 'zustand';

export type ThemeChoice = 'system' | 'light' | 'dark';
export const THEME_CHOICES: readonly ThemeChoice[] = ['system', 'light', 'dark'];

const STORAGE_KEY = 'tokenbench.theme';

function storedChoice(): ThemeChoice {
  const stored = window.localStorage.getItem(STORAGE_KEY);
  return THEME_CHOICES.find((choice) => choice === stored) ?? 'system';
}

interface ThemeState {
  /** What the user picked; `system` follows the operating system's light or dark setting. */
  choice: ThemeChoice;
  choose(choice: ThemeChoice): void;
}

/** The workbench's theme, remembered in this browser profile (the desktop app's own). */
export const useThemeStore = create<ThemeState>()((set) => ({
  choice: storedChoice(),
  choose(choice) {
    window.localStorage.setItem(STORAGE_KEY, choice);
    set({ choice });
  },
}));
