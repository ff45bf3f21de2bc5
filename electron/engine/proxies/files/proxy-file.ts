import type { ApplicationStore } from '../../access/application-store';
import type { ExpressionEngine } from '../../expressions';
import type { SecretStore } from '../../secrets/secret-store';
import { dependencyFailure } from '../dependency-check';
import type { ProxyDefinition, StoredProxy } from '../proxy-model';
import { parseProxyRequest } from '../proxy-requests';
import { checkDefinition } from '../proxy-routes';
import type { ProxyStore } from '../proxy-store';
import { type CodeSlot, type DefinitionFileKind, isObject } from './definition-file';
import type { FileIdentities } from './file-identities';
import { resolvedConfiguration } from './file-secrets';
import { servedFromFile } from './file-served';
import type { FolderKind } from './proxy-folder';

/**
 * A proxy file of the proxies folder (docs/api.md, Proxies as files): the POST /proxies body as JSON, where a code
 * transform may name a `.js` file beside it (`"code_file": "charge.request.js"`) in place of `code`.
 */

export const PROXY_FILE_SUFFIX = '.json';

/** The fields of a proxy file: the POST /proxies body's. */
const FIELDS = new Set([
  'name',
  'destination_url',
  'request_transforms',
  'response_transforms',
  'request_transform',
  'response_transform',
  'application',
  'application_id',
  'configuration',
  'require_auth',
  'disable_detokenization',
  'request_reactor_id',
  'response_reactor_id',
]);

export interface ProxyFileChecks {
  applications: ApplicationStore;
  expressions: ExpressionEngine;
  secrets: SecretStore;
  /** Where node22 code finds its dependencies (`serve --code-dependencies DIR`); null: none. */
  dependenciesDir: string | null;
}

/** Each transform of a file's JSON with the field path it stands at: `request_transforms[0]`, `response_transform`. */
function transformsOf(json: Record<string, unknown>): CodeSlot[] {
  const found: CodeSlot[] = [];
  for (const side of ['request', 'response'] as const) {
    const list = json[`${side}_transforms`];
    if (Array.isArray(list)) {
      list.forEach((transform, i) => {
        if (isObject(transform)) found.push({ at: `${side}_transforms[${i}]`, holder: transform, put: (next) => (list[i] = next) });
      });
    }
    const single = json[`${side}_transform`];
    if (isObject(single)) found.push({ at: `${side}_transform`, holder: single, put: (next) => (json[`${side}_transform`] = next) });
  }
  return found;
}

/** Proxy files, checked as the API checks a proxy; `codeLoaded` refuses code where the code runtime is off. */
function proxyFileKind(checks: ProxyFileChecks, codeLoaded: () => void): DefinitionFileKind<ProxyDefinition> {
  return {
    noun: 'proxy',
    body: 'POST /proxies',
    fields: FIELDS,
    kept: ['id', 'key'],
    codeSlots: transformsOf,
    check(json) {
      const definition = parseProxyRequest(json);
      checkDefinition(definition, checks);
      if ([...definition.request_transforms, ...definition.response_transforms].some((t) => t.type === 'code')) codeLoaded();
      return { definition, configuration: definition.configuration, lacking: dependencyFailure(definition, checks.dependenciesDir)?.error_details ?? null };
    },
  };
}

/**
 * The proxies folder's `.json` files (those no other kind claims) as proxies: each served with the id and key kept for
 * its path, its configuration's secrets put in at each call.
 */
export function proxyFolderKind(deps: { proxies: ProxyStore; identities: FileIdentities; checks: ProxyFileChecks; codeLoaded(): void }): FolderKind<ProxyDefinition> {
  const { secrets } = deps.checks;
  return {
    kind: 'proxy',
    suffix: PROXY_FILE_SUFFIX,
    file: proxyFileKind(deps.checks, deps.codeLoaded),
    identities: deps.identities,
    install({ path, folder, identity }, definition, before) {
      const referencing = Object.values(definition.configuration).some((value) => value.includes('${'));
      const proxy: StoredProxy = {
        ...definition,
        ...servedFromFile(path, identity, before !== null),
        key: identity.key,
        file: {
          path,
          folder,
          atCall(log) {
            if (!referencing) return proxy;
            const { configuration, values } = resolvedConfiguration(proxy.configuration, secrets, path);
            log.secrets ??= values ?? undefined;
            return { ...proxy, configuration };
          },
        },
      };
      deps.proxies.install(proxy);
      return proxy;
    },
    uninstall: (id) => deps.proxies.uninstall(id),
  };
}
