import { workbenchCause } from '../people/acting-person';
import type { Request, SentReply } from '../../../shared/workbench/methods';
import type { ProxyView } from '../../../shared/workbench/proxy-contract';
import type { ProxyFileState } from '../proxies/files/proxy-folder';
import type { StoredProxy } from '../proxies/proxy-model';
import { dependencyFailure } from '../proxies/dependency-check';
import { acceptedDefinition, deleteProxy, type ProxyRouteDeps } from '../proxies/proxy-routes';

/** Who a proxy the workbench's user saved was created or changed by, where the API names the calling application. */
const WORKBENCH_AUTHOR = 'workbench';

/** A file proxy's file as the page shows it: its path, and its problems and warnings when it has any. */
function fileOf(path: string, state: ProxyFileState | undefined): ProxyView['file'] {
  const problems = state?.problems ?? [];
  const warnings = state?.warnings ?? [];
  return { path, ...(problems.length > 0 && { problems }), ...(warnings.length > 0 && { warnings }) };
}

/** A proxy as the page shows it: its key by its last four characters only; a file proxy's file with its state. */
function viewOf(proxy: StoredProxy, files: readonly ProxyFileState[]): ProxyView {
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
    ...(proxy.file && { file: fileOf(proxy.file.path, files.find((file) => file.path === proxy.file!.path)) }),
  };
}

/**
 * Pre-configured proxies as the Proxies page manages them: the same store and the same validation as /proxies
 * (acceptedDefinition), acting for the workbench's user, so no management key is needed.
 */
export function proxySettings(deps: ProxyRouteDeps, folderFiles: () => readonly ProxyFileState[]) {
  const { proxies } = deps;
  const viewed = (proxy: StoredProxy) => viewOf(proxy, proxy.file ? folderFiles() : []);
  return {
    list: (): ProxyView[] => {
      const files = folderFiles();
      return proxies.list({ ids: [], name: undefined }).map((proxy) => viewOf(proxy, files));
    },
    get: ({ id }: Request<'getProxy'>): ProxyView => viewed(proxies.require(id)),
    create(definition: Request<'createProxy'>): ProxyView {
      const accepted = acceptedDefinition(definition, deps);
      return viewed(proxies.create(accepted, WORKBENCH_AUTHOR, dependencyFailure(accepted, deps.dependenciesDir), workbenchCause()));
    },
    update({ id, ...definition }: Request<'updateProxy'>): ProxyView {
      proxies.requireWritable(id);
      const accepted = acceptedDefinition(definition, deps);
      return viewed(proxies.replace(id, accepted, WORKBENCH_AUTHOR, dependencyFailure(accepted, deps.dependenciesDir), workbenchCause()));
    },
    async remove({ id }: Request<'deleteProxy'>): Promise<SentReply<'deleteProxy'>> {
      await deleteProxy(deps, id, workbenchCause());
      return { deleted: true };
    },
    /** The key a Try calls the proxy with: it goes into the request the engine sends, never to the page. */
    keyOf: (id: string): string => proxies.require(id).key,
    /** The proxy's name for History's sentences; undefined when there is none by that id. */
    nameOf: (id: string): string | undefined => proxies.list({ ids: [id], name: undefined })[0]?.name,
  };
}

export type ProxySettings = ReturnType<typeof proxySettings>;
