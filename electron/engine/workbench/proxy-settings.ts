import type { Request, SentReply } from '../../../shared/workbench/methods';
import type { ProxyView } from '../../../shared/workbench/proxy-contract';
import type { StoredProxy } from '../proxies/proxy-model';
import { dependencyFailure } from '../proxies/dependency-check';
import { acceptedDefinition, deleteProxy, type ProxyRouteDeps } from '../proxies/proxy-routes';

/** Who a proxy the workbench's user saved was created or changed by, where the API names the calling application. */
const WORKBENCH_AUTHOR = 'workbench';

/** A proxy as the page shows it: its key by its last four characters only. */
function viewOf(proxy: StoredProxy): ProxyView {
  const { id, name, destination_url, request_transforms, response_transforms, application_id, configuration, require_auth, disable_detokenization, state } = proxy;
  return {
    id,
    name,
    destination_url,
    request_transforms,
    response_transforms,
    application_id,
    configuration,
    require_auth,
    disable_detokenization,
    state,
    key_last4: proxy.key.slice(-4),
    created_at: proxy.created_at,
    modified_at: proxy.modified_at,
  };
}

/**
 * Pre-configured proxies as the Proxies page manages them: the same store and the same validation as /proxies
 * (acceptedDefinition), acting for the workbench's user, so no management key is needed.
 */
export function proxySettings(deps: ProxyRouteDeps) {
  const { proxies } = deps;
  return {
    list: (): ProxyView[] => proxies.list({ ids: [], name: undefined }).map(viewOf),
    get: ({ id }: Request<'getProxy'>): ProxyView => viewOf(proxies.require(id)),
    create(definition: Request<'createProxy'>): ProxyView {
      const accepted = acceptedDefinition(definition, deps);
      return viewOf(proxies.create(accepted, WORKBENCH_AUTHOR, dependencyFailure(accepted, deps.dependenciesDir)));
    },
    update({ id, ...definition }: Request<'updateProxy'>): ProxyView {
      proxies.requireWritable(id);
      const accepted = acceptedDefinition(definition, deps);
      return viewOf(proxies.replace(id, accepted, WORKBENCH_AUTHOR, dependencyFailure(accepted, deps.dependenciesDir)));
    },
    remove({ id }: Request<'deleteProxy'>): SentReply<'deleteProxy'> {
      deleteProxy(deps, id);
      return { deleted: true };
    },
    /** The key a Try calls the proxy with: it goes into the request the engine sends, never to the page. */
    keyOf: (id: string): string => proxies.require(id).key,
    /** The proxy's name for History's sentences; undefined when there is none by that id. */
    nameOf: (id: string): string | undefined => proxies.list({ ids: [id], name: undefined })[0]?.name,
  };
}

export type ProxySettings = ReturnType<typeof proxySettings>;
