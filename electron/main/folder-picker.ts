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

/**
 * The handler of the desktop's folder picker: the system's dialog, modal to the window that asked, answering the
 * folder chosen or null when the user cancelled. It changes nothing itself: the page hands the path to the engine,
 * which checks it (setCollectionsFolder).
 */
export function folderPicker<S, W>(dialog: FolderDialog<W>, windowOf: (sender: S) => W | null) {
  return async (event: { sender: S }): Promise<string | null> => {
    const window = windowOf(event.sender);
    if (window === null) return null;
    const { canceled, filePaths } = await dialog.showOpenDialog(window, FOLDER_DIALOG_OPTIONS);
    return canceled ? null : (filePaths[0] ?? null);
  };
}
