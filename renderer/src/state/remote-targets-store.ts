import type { RemoteTarget } from '../../../shared/workbench/composer-contract';
import { resourceStore } from './resource-store';

/** The remote services the Composer may send to instead of this engine (their keys stay in the engine): listed on the Composer's visit, and after one was added or deleted. */
export const useRemoteTargetsStore = resourceStore('listRemoteTargets');

/** The remote target chosen, while it exists; null sends to this engine. */
export function remoteTargetToUse(targets: readonly RemoteTarget[] | null, chosen: string | null): RemoteTarget | null {
  return (chosen !== null && targets?.find((target) => target.id === chosen)) || null;
}
