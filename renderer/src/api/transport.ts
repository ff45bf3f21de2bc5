import type { CallName, StreamName } from '../../../shared/workbench/methods';
import type { PageId } from '../../../shared/workbench/pages';

/** How the page reaches the engine: IPC through the preload bridge (Electron), or HTTP (a browser). */
export interface Transport {
  /** The raw reply of a call made on `page` (for the engine's history); rejects with a WorkbenchError saying why it failed. */
  call(name: CallName, request: unknown, page: PageId | undefined): Promise<unknown>;
  /** Raw events of a stream until the returned function is called; `lost` when the transport drops. */
  subscribe(name: StreamName, onEvent: (event: unknown) => void, onLost: (retrying: boolean) => void): () => void;
}
