import { resourceStore } from './resource-store';

/** How the engine is set up, as the pages that explain a limit or change one read it. */
export const useSettingsStore = resourceStore('getSettings');
