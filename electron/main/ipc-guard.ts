import type { z } from 'zod';

/** What the guard reads of an IPC event; Electron's IpcMainInvokeEvent has it. */
export interface IpcSenderEvent {
  senderFrame: { url: string } | null;
}

/**
 * Wraps every `ipcMain.handle` handler: a frame that is not the app's page is refused before anything runs, and
 * the payload is validated against its channel's schema, once, here.
 */
export function guardIpcHandler<S extends z.ZodType, E extends IpcSenderEvent, R>(
  isTrusted: (frameUrl: string) => boolean,
  schema: S,
  handler: (payload: z.output<S>, event: E) => R,
): (event: E, payload?: unknown) => R {
  return (event, payload) => {
    const url = event.senderFrame?.url;
    if (!url || !isTrusted(url)) throw new Error('IPC refused: the caller is not the Tokenbench window');
    const parsed = schema.safeParse(payload);
    if (!parsed.success) {
      throw new Error(`IPC refused: invalid payload (${parsed.error.issues.map((i) => `${i.path.join('.') || 'payload'}: ${i.message}`).join('; ')})`);
    }
    return handler(parsed.data, event);
  };
}
