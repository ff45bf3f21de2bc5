/** What the guard reads of an IPC event; Electron's IpcMainInvokeEvent has it. */
export interface IpcSenderEvent {
  senderFrame: { url: string } | null;
}

/** Wraps every `ipcMain.handle` handler: a frame that is not the app's page is refused before anything runs. */
export function refuseUntrusted<E extends IpcSenderEvent, R>(
  isTrusted: (frameUrl: string) => boolean,
  handler: (event: E, ...args: unknown[]) => R,
): (event: E, ...args: unknown[]) => R {
  return (event, ...args) => {
    const url = event.senderFrame?.url;
    if (!url || !isTrusted(url)) throw new Error('IPC refused: the caller is not the Tokenbench window');
    return handler(event, ...args);
  };
}
