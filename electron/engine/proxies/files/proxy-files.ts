import { workbenchCause } from '../../people/acting-person';
import type { ProxyFilesView } from '../../../../shared/workbench/proxy-files-contract';
import type { SecretStore } from '../../secrets/secret-store';
import type { ProxyDefinition, ProxyTransform } from '../proxy-model';
import { parseProxyRequest } from '../proxy-requests';
import { checkDefinition } from '../proxy-routes';
import type { ProxyStore } from '../proxy-store';
import { CODE_FILE_SUFFIX } from './definition-file';
import { type DefinitionFilesWritten, fileBaseOf, hostedObject, keptIdentity, writeDefinitionFiles } from './definition-writer';
import type { FileIdentities, FileIdentity } from './file-identities';
import { PROXY_FILE_SUFFIX, type ProxyFileChecks } from './proxy-file';
import type { ProxyFolder } from './proxy-folder';

/** Fields of the hosted service's proxy object that only it sets: an import leaves them out (id and key aside). */
const READ_ONLY = ['id', 'key', 'tenant_id', 'state', 'requested', 'proxy_host', 'timeout', 'client_certificate', 'created_by', 'created_at', 'modified_by', 'modified_at'];
const PROXY_KEY = /^[A-Za-z0-9_-]{16,200}$/;

/** A transform as its file keeps it: code in the `.js` file beside it, named by `code_file`. */
function fileTransform(transform: ProxyTransform, codeFile: string): Record<string, unknown> {
  const { code, ...rest } = transform;
  return code === undefined ? { ...rest } : { ...rest, code_file: codeFile };
}

/**
 * The proxies folder as the workbench drives it: which folder, its files' state, and proxies written into it (an
 * export of one made through the API or the page, an import of the hosted service's JSON), each whole or not at all.
 */
export class ProxyFiles {
  constructor(
    private readonly deps: {
      folder: ProxyFolder;
      proxies: ProxyStore;
      identities: FileIdentities;
      secrets: SecretStore;
      checks: ProxyFileChecks;
      setting: { state(): { stored: string | null; pinnedBy: string | null }; change(folder: string | null): Promise<string | null> };
    },
  ) {}

  view(): ProxyFilesView {
    const { folder, proxies, setting } = this.deps;
    return {
      folder: folder.folder,
      ...setting.state(),
      files: folder.files(),
      exportable: proxies.list({ ids: [], name: undefined }).flatMap((p) => (p.file ? [] : [{ id: p.id, name: p.name }])),
    };
  }

  async changeFolder(path: string | null): Promise<ProxyFilesView> {
    await this.deps.folder.open(await this.deps.setting.change(path));
    return this.view();
  }

  /**
   * Moves a proxy made through the API into the folder: its files written, its secret configuration values moved
   * into Secrets, and from then on it is the file's proxy, with the same id and key.
   */
  exportProxy(id: string, file: string | undefined, secretKeys: readonly string[]): Promise<DefinitionFilesWritten> {
    const proxy = this.deps.proxies.requireWritable(id);
    const { id: proxyId, key, created_at } = proxy;
    return this.write(proxy, { id: proxyId, key, created_at }, file ?? fileBaseOf(proxy.name, 'proxy'), secretKeys, () => this.deps.proxies.delete(proxyId, workbenchCause()));
  }

  /**
   * Writes the hosted service's proxy object (GET /proxies/{id}) as a proxy file. Its read-only fields are left out;
   * its id and key are kept when no proxy here has either, so an integration's configuration works unchanged.
   */
  async importProxy(json: string, file: string | undefined, secretKeys: readonly string[]): Promise<DefinitionFilesWritten> {
    const hosted = hostedObject(json, 'proxy', 'GET /proxies/{id}');
    const body: Record<string, unknown> = { ...hosted };
    for (const field of READ_ONLY) delete body[field];
    for (const side of ['request', 'response'] as const) {
      // The hosted object carries each list and its legacy singular copy: the list is the proxy's.
      if (body[`${side}_transforms`] != null) delete body[`${side}_transform`];
      if (body[`${side}_reactor_id`] === null) delete body[`${side}_reactor_id`];
    }
    const definition = parseProxyRequest(body);
    checkDefinition(definition, this.deps.checks);
    const key = typeof hosted.key === 'string' && PROXY_KEY.test(hosted.key) ? hosted.key : null;
    const identity = await keptIdentity(hosted, key, async (id) => this.deps.proxies.holds(id, key!) || (await this.deps.identities.hasId(id)));
    return await this.write(definition, identity, file ?? fileBaseOf(definition.name, 'proxy'), secretKeys);
  }

  /** Writes `definition` as `<base>.json` and its code as `<base>.request.js` / `<base>.response.js`. */
  private write(definition: ProxyDefinition, identity: FileIdentity | null, base: string, secretKeys: readonly string[], commit?: () => Promise<void>): Promise<DefinitionFilesWritten> {
    const codeFile = (side: 'request' | 'response') => `${base}.${side}${CODE_FILE_SUFFIX}`;
    const code: [string, string][] = [];
    for (const side of ['request', 'response'] as const) {
      const text = definition[`${side}_transforms`].find((t) => t.code !== undefined)?.code;
      if (text !== undefined) code.push([codeFile(side), text]);
    }
    return writeDefinitionFiles(this.deps.folder, this.deps.secrets, secretKeys, {
      path: base + PROXY_FILE_SUFFIX,
      configuration: definition.configuration,
      secretsFrom: `proxy-${base}`,
      json: (configuration) => ({
        name: definition.name,
        destination_url: definition.destination_url,
        require_auth: definition.require_auth,
        ...(definition.disable_detokenization && { disable_detokenization: true }),
        ...(definition.application_id !== null && { application: { id: definition.application_id } }),
        configuration,
        request_transforms: definition.request_transforms.map((t) => fileTransform(t, codeFile('request'))),
        response_transforms: definition.response_transforms.map((t) => fileTransform(t, codeFile('response'))),
      }),
      code,
      identities: this.deps.identities,
      identity,
      commit,
    });
  }
}
