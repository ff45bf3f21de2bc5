import { callMethod, problemOf } from '../engine';
import { isCall, METHOD_NAMES, type CallName, type StreamName, type WorkbenchModel } from '../../shared/workbench/methods';
import { ipcChannel, ipcStreamControl, type IpcOutcome } from '../../shared/workbench/transport';
import { refuseUntrusted, type IpcSenderEvent } from './ipc-guard';

/** What the handlers need of the calling renderer (Electron's WebContents has it): where to push stream events. */
export interface StreamSubscriber {
  readonly id: number;
  send(channel: string, event: unknown): void;
  isDestroyed(): boolean;
  once(event: 'destroyed', listener: () => void): unknown;
}

export interface WorkbenchIpcEvent extends IpcSenderEvent {
  sender: StreamSubscriber;
}

export type IpcHandler = (event: WorkbenchIpcEvent, payload?: unknown, page?: unknown) => unknown;

export interface WorkbenchIpc {
  /** Every channel of the method table with its guarded handler, ready for `ipcMain.handle`. */
  handlers(isTrusted: (frameUrl: string) => boolean): [string, IpcHandler][];
  /** Ends every stream subscription (before the engine stops). */
  close(): void;
}

/**
 * The main-process side of the method table: a call's payload is validated against its row and answered by the
 * engine's workbench model as an IpcOutcome; a stream pushes its events to the window that started it.
 */
export function workbenchIpc(model: WorkbenchModel): WorkbenchIpc {
  /** Per stream and window: how to end that window's subscription. */
  const subscriptions = new Map<string, () => void>();
  const key = (name: StreamName, windowId: number) => `${name}:${windowId}`;
  const stop = (id: string) => {
    subscriptions.get(id)?.();
    subscriptions.delete(id);
  };

  /** `page` is the workbench page the call was made on, as the renderer named it: validated with the request. */
  async function answerCall(name: CallName, payload: unknown, page: unknown): Promise<IpcOutcome> {
    try {
      return { ok: true, value: await callMethod(model, name, payload ?? {}, page) };
    } catch (error) {
      return { ok: false, problem: problemOf(error) };
    }
  }

  function startStream(name: StreamName, { sender }: WorkbenchIpcEvent): void {
    const id = key(name, sender.id);
    // A reloaded page subscribes again from the same WebContents: replace, never double up.
    if (subscriptions.has(id)) stop(id);
    else sender.once('destroyed', () => stop(id));
    subscriptions.set(
      id,
      model[name]((event) => {
        if (!sender.isDestroyed()) sender.send(ipcChannel(name), event);
      }),
    );
  }

  const channels = METHOD_NAMES.flatMap((name): [string, IpcHandler][] =>
    isCall(name)
      ? [[ipcChannel(name), (_event, payload, page) => answerCall(name, payload, page)]]
      : [
          [ipcStreamControl(name, 'start'), (event) => startStream(name, event)],
          [ipcStreamControl(name, 'stop'), (event) => stop(key(name, event.sender.id))],
        ],
  );

  return {
    handlers: (isTrusted) => channels.map(([channel, handler]) => [channel, refuseUntrusted(isTrusted, handler)]),
    close: () => [...subscriptions.keys()].forEach(stop),
  };
}
