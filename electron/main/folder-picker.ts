import type { FolderPurpose } from '../../shared/workbench/transport';

/** The options the picker opens the system's dialog with (a subset of Electron's OpenDialogOptions). */
export interface FolderDialogOptions {
  title: string;
  buttonLabel: string;
  properties: ('openDirectory' | 'createDirectory')[];
}

/** What the picker uses of Electron's `dialog`: substituted in tests. */
export interface FolderDialog<W> {
  showOpenDialog(window: W, options: FolderDialogOptions): Promise<{ canceled: boolean; filePaths: string[] }>;
}

export const FOLDER_DIALOG_OPTIONS: FolderDialogOptions = {
  title: 'Choose the folder for saved requests',
  buttonLabel: 'Use this folder',
  // A new folder can be made from the dialog: a repository's requests/ often does not exist yet.
  properties: ['openDirectory', 'createDirectory'],
};

export const PROXIES_FOLDER_DIALOG_OPTIONS: FolderDialogOptions = {
  title: 'Choose the folder of proxy files',
  buttonLabel: 'Load proxies from this folder',
  properties: ['openDirectory', 'createDirectory'],
};

const DIALOGS: Record<FolderPurpose, FolderDialogOptions> = { collections: FOLDER_DIALOG_OPTIONS, proxies: PROXIES_FOLDER_DIALOG_OPTIONS };

/**
 * The handler of the desktop's folder picker: the system's dialog, modal to the window that asked, answering the
 * folder chosen or null when the user cancelled. It changes nothing itself: the page hands the path to the engine,
 * which checks it (setCollectionsFolder, setProxiesFolder). A purpose it does not know opens nothing.
 */
export function folderPicker<S, W>(dialog: FolderDialog<W>, windowOf: (sender: S) => W | null) {
  return async (event: { sender: S }, purpose: unknown = 'collections'): Promise<string | null> => {
    if (purpose !== 'collections' && purpose !== 'proxies') throw new Error(`No folder is picked for ${String(purpose)}`);
    const window = windowOf(event.sender);
    if (window === null) return null;
    const { canceled, filePaths } = await dialog.showOpenDialog(window, DIALOGS[purpose]);
    return canceled ? null : (filePaths[0] ?? null);
  };
}
