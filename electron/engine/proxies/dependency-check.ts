/**
 * node22 `runtime.dependencies` checked when a proxy is saved (vendor-surfaces.md §1.4): Tokenbench cannot download
 * them, so a definition whose dependencies the dependencies folder lacks is saved `failed` with
 * `dependency_unavailable`, and goes live once the folder holds them.
 */
import { missingDependencies } from '../code-runtime';
import type { ProxyDefinition, StoredProxy } from './proxy-model';
import type { ProxyStore, SaveFailure } from './proxy-store';

/** What the definition's node22 code lacks in `dir` (the first transform that lacks anything), or null. */
export function dependencyFailure(definition: ProxyDefinition, dir: string | null): SaveFailure {
  for (const side of ['request_transforms', 'response_transforms'] as const) {
    for (const [i, transform] of definition[side].entries()) {
      const runtime = transform.options?.runtime;
      if (transform.type !== 'code' || runtime?.image !== 'node22') continue;
      const missing = missingDependencies(runtime, dir ?? undefined);
      if (missing) return { error_code: 'dependency_unavailable', error_message: missing, error_details: { [`${side}[${i}].options.runtime.dependencies`]: [missing] } };
    }
  }
  return null;
}

/**
 * The proxy as it stands now: a failed one's requested change goes live when the folder has come to hold what it
 * lacked. Checked when the proxy is read or invoked, which is when a client can notice.
 */
export async function settled(proxies: ProxyStore, proxy: StoredProxy, dir: string | null): Promise<StoredProxy> {
  if (proxy.requested === null || dependencyFailure(proxy.requested.definition, dir) !== null) return proxy;
  return await proxies.activate(proxy.id);
}
