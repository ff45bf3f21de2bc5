import type { Engine } from '../engine';
import { LiveFeed } from '../engine/workbench';
import { ipcRequestSchemas, type IpcReplies, type IpcRequest, type SentLiveEvent } from '../../shared/workbench/contract';
import { IPC_CHANNELS, type InvokeChannel } from '../../shared/workbench/transport';
import { guardIpcHandler, type IpcSenderEvent } from './ipc-guard';

/** What the handlers need of the calling renderer (Electron's WebContents has it): where to push live events. */
export interface LiveSubscriber {
  readonly id: number;
  send(channel: string, event: SentLiveEvent): void;
  isDestroyed(): boolean;
  once(event: 'destroyed', listener: () => void): unknown;
}

export interface WorkbenchIpcEvent extends IpcSenderEvent {
  sender: LiveSubscriber;
}

type Handlers = {
  [C in InvokeChannel]: (payload: IpcRequest<C>, event: WorkbenchIpcEvent) => IpcReplies[C] | Promise<IpcReplies[C]>;
};

export interface WorkbenchIpc {
  /** Every channel with its guarded handler, ready for `ipcMain.handle`. */
  handlers(isTrusted: (frameUrl: string) => boolean): [InvokeChannel, (event: WorkbenchIpcEvent, payload?: unknown) => unknown][];
  /** Ends every live subscription (before the engine stops). */
  close(): void;
}

/** The main-process side of the workbench contract: the engine's status and history, its live feed per window, and reveals. */
export function workbenchIpc(engine: Pick<Engine, 'history' | 'status' | 'revealOutbound'>): WorkbenchIpc {
  const feed = new LiveFeed(engine.history, () => engine.status());
  const live = new Map<number, () => void>();

  const stopLive = (id: number) => {
    live.get(id)?.();
    live.delete(id);
  };

  const handlers: Handlers = {
    [IPC_CHANNELS.getStatus]: () => engine.status(),
    [IPC_CHANNELS.listHistory]: ({ limit, before }) => engine.history.list(limit, before),
    [IPC_CHANNELS.liveStart]: (_payload, { sender }) => {
      // A reloaded page subscribes again from the same WebContents: replace, never double up.
      if (live.has(sender.id)) stopLive(sender.id);
      else sender.once('destroyed', () => stopLive(sender.id));
      live.set(
        sender.id,
        feed.subscribe((update) => {
          if (!sender.isDestroyed()) sender.send(IPC_CHANNELS.live, update);
        }),
      );
      return { type: 'connected', status: engine.status() };
    },
    [IPC_CHANNELS.liveStop]: (_payload, { sender }) => stopLive(sender.id),
    [IPC_CHANNELS.revealOutbound]: async ({ id }) => ({ detokenized_body: await engine.revealOutbound(id) }),
  };

  return {
    handlers: (isTrusted) =>
      (Object.keys(handlers) as InvokeChannel[]).map((channel) => [
        channel,
        guardIpcHandler(isTrusted, ipcRequestSchemas[channel], handlers[channel] as (payload: unknown, event: WorkbenchIpcEvent) => unknown),
      ]),
    close: () => [...live.keys()].forEach(stopLive),
  };
}
