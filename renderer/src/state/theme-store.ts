import { create } from 'zustand';
import { storedPreference } from './stored-preference';

export type ThemeChoice = 'system' | 'light' | 'dark';
export const THEME_CHOICES: readonly ThemeChoice[] = ['system', 'light', 'dark'];

const stored = storedPreference<ThemeChoice>('tokenbench.theme', (value) => THEME_CHOICES.find((choice) => choice === value));

interface ThemeState {
  /** What the user picked; `system` follows the operating system's light or dark setting. */
  choice: ThemeChoice;
  choose(choice: ThemeChoice): void;
}

/** The workbench's theme, remembered in this browser profile (the desktop app's own). */
export const useThemeStore = create<ThemeState>()((set) => ({
  choice: stored.read() ?? 'system',
  choose(choice) {
    stored.write(choice);
    set({ choice });
  },
}));
