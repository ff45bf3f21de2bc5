import { WORKBENCH_CAUSE } from '../../events/event-outbox';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { ProxyFilesView } from '../../../../shared/workbench/proxy-files-contract';
import { nowIso } from '../../clock';
import type { SecretStore } from '../../secrets/secret-store';
import { ApiProblem } from '../../server/problem';
import { writeFileAtomic } from '../../storage/atomic-file';
import type { ProxyDefinition, ProxyTransform } from '../proxy-model';
import { parseProxyRequest } from '../proxy-requests';
import { checkDefinition } from '../proxy-routes';
import type { ProxyStore } from '../proxy-store';
import type { FileIdentities, FileIdentity } from './file-identities';
import { configurationAside } from './file-secrets';
import { CODE_FILE_SUFFIX } from './definition-file';
import { PROXY_FILE_SUFFIX, type ProxyFileChecks } from './proxy-file';
import type { ProxyFolder } from './proxy-folder';

/** What an export or an import wrote, and what became of the proxy's identity and secrets. */
export interface ProxyFilesWritten {
  path: string;
  files: string[];
  id: string;
  kept_identity: boolean;
  moved: { key: string; secret: string }[];
}

/** Fields of the hosted service's proxy object that only it sets: an import leaves them out (id and key aside). */
const READ_ONLY = ['id', 'key', 'tenant_id', 'state', 'requested', 'proxy_host', 'timeout', 'client_certificate', 'created_by', 'created_at', 'modified_by', 'modified_at'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const PROXY_KEY = /^[A-Za-z0-9_-]{16,200}$/;

/** A proxy's name as a file's: `Charge a card` → `charge-a-card`. */
const fileBaseOf = (name: string) =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9_.]+/g, '-')
    .replace(/^[^a-z0-9]+|[^a-z0-9]+$/g, '')
    .slice(0, 80) || 'proxy';

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
      setting: { state(): { stored: string | null; pinnedBy: string | null }; change(folder: string | null): string | null };
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

  changeFolder(path: string | null): ProxyFilesView {
    this.deps.folder.open(this.deps.setting.change(path));
    return this.view();
  }

  /**
   * Moves a proxy made through the API into the folder: its files written, its secret configuration values moved
   * into Secrets, and from then on it is the file's proxy, with the same id and key.
   */
  exportProxy(id: string, file: string | undefined, secretKeys: readonly string[]): ProxyFilesWritten {
    const proxy = this.deps.proxies.requireWritable(id);
    const { id: proxyId, key, created_at } = proxy;
    return this.write(proxy, { id: proxyId, key, created_at }, file ?? fileBaseOf(proxy.name), secretKeys, () => this.deps.proxies.delete(proxyId, WORKBENCH_CAUSE));
  }

  /**
   * Writes the hosted service's proxy object (GET /proxies/{id}) as a proxy file. Its read-only fields are left out;
   * its id and key are kept when no proxy here has either, so an integration's configuration works unchanged.
   */
  importProxy(json: string, file: string | undefined, secretKeys: readonly string[]): ProxyFilesWritten {
    let hosted: unknown;
    try {
      hosted = JSON.parse(json);
    } catch (error) {
      throw new ApiProblem(400, `The proxy is not valid JSON: ${(error as Error).message}`);
    }
    if (typeof hosted !== 'object' || hosted === null || Array.isArray(hosted)) throw new ApiProblem(400, 'The proxy is one JSON object, as GET /proxies/{id} answers it');
    const body: Record<string, unknown> = { ...hosted };
    for (const field of READ_ONLY) delete body[field];
    for (const side of ['request', 'response'] as const) {
      // The hosted object carries each list and its legacy singular copy: the list is the proxy's.
      if (body[`${side}_transforms`] != null) delete body[`${side}_transform`];
      if (body[`${side}_reactor_id`] === null) delete body[`${side}_reactor_id`];
    }
    const definition = parseProxyRequest(body);
    checkDefinition(definition, this.deps.checks);
    const { id, key, created_at } = hosted as Record<string, unknown>;
    const free =
      typeof id === 'string' && UUID.test(id) && typeof key === 'string' && PROXY_KEY.test(key) && !this.deps.proxies.holds(id, key) && !this.deps.identities.hasId(id);
    const identity = free ? { id, key, created_at: typeof created_at === 'string' && !Number.isNaN(Date.parse(created_at)) ? created_at : nowIso() } : null;
    return this.write(definition, identity, file ?? fileBaseOf(definition.name), secretKeys);
  }

  /**
   * Writes `definition` as `<base>.json` and its code as `<base>.request.js` / `<base>.response.js`, never over a file
   * there, with its secret values moved aside and its identity claimed for the path, all in one transaction: a write
   * that fails leaves no file and no secret behind. The folder is read again before this returns.
   */
  private write(definition: ProxyDefinition, identity: FileIdentity | null, base: string, secretKeys: readonly string[], commit?: () => void): ProxyFilesWritten {
    const { folder, secrets, identities } = this.deps;
    const root = folder.folder;
    if (root === null) throw new ApiProblem(409, 'No proxies folder is chosen: choose one in Settings, under Proxies folder, or start with --proxies DIR');
    const path = base + PROXY_FILE_SUFFIX;
    const codeFile = (side: 'request' | 'response') => `${base}.${side}${CODE_FILE_SUFFIX}`;
    const written: string[] = [];
    try {
      const result = secrets.atomically(() => {
        const { configuration, moved } = configurationAside(definition.configuration, `proxy-${base}`, secrets, secretKeys);
        const claimed = identity ? identities.claim(path, identity) : identities.of(path);
        const json: Record<string, unknown> = {
          name: definition.name,
          destination_url: definition.destination_url,
          require_auth: definition.require_auth,
          ...(definition.disable_detokenization && { disable_detokenization: true }),
          ...(definition.application_id !== null && { application: { id: definition.application_id } }),
          configuration,
          request_transforms: definition.request_transforms.map((t) => fileTransform(t, codeFile('request'))),
          response_transforms: definition.response_transforms.map((t) => fileTransform(t, codeFile('response'))),
        };
        const files: [string, string][] = [];
        for (const side of ['request', 'response'] as const) {
          const code = definition[`${side}_transforms`].find((t) => t.code !== undefined)?.code;
          if (code !== undefined) files.push([codeFile(side), code.endsWith('\n') ? code : `${code}\n`]);
        }
        // The JSON last: the folder's watcher finds the proxy only once its code is there.
        files.push([path, `${JSON.stringify(json, null, 2)}\n`]);
        for (const [name, text] of files) {
          try {
            writeFileAtomic(join(root, name), text, 'create');
          } catch (error) {
            if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw new ApiProblem(409, `${name} is in the proxies folder already: choose another file name`);
            throw new ApiProblem(507, `${name} could not be written (${(error as NodeJS.ErrnoException).code}): nothing was exported`);
          }
          written.push(name);
        }
        // Last: it takes the proxy out of the store's memory too, which a rollback would not put back.
        commit?.();
        return { path, files: files.map(([name]) => name), id: claimed.id, kept_identity: identity !== null, moved };
      });
      folder.reload();
      return result;
    } catch (error) {
      for (const name of written) rmSync(join(root, name), { force: true });
      throw error;
    }
  }
}
