/**
 * Reactors moved into the proxies folder (docs/api.md, Reactors as files): one made through the API exported, or the
 * hosted service's GET /reactors/{id} object imported, as a `.reactor.json` file with its code beside it, written by
 * the proxies' own writer (secrets into Secrets, identity kept for the path, whole or not at all).
 */
import { workbenchCause } from '../people/acting-person';
import type { ApplicationStore } from '../access/application-store';
import { CODE_FILE_SUFFIX } from '../proxies/files/definition-file';
import { type DefinitionFilesWritten, fileBaseOf, hostedObject, keptIdentity, writeDefinitionFiles } from '../proxies/files/definition-writer';
import type { FileIdentities, FileIdentity } from '../proxies/files/file-identities';
import type { ProxyFolder } from '../proxies/files/proxy-folder';
import type { SecretStore } from '../secrets/secret-store';
import type { ReactorDefinition } from './reactor-model';
import { parseReactorRequest } from './reactor-requests';
import { REACTOR_FILE_SUFFIX } from './reactor-file';
import { checkApplication } from './reactor-routes';
import type { ReactorStore } from './reactor-store';

/** Fields of the hosted service's reactor object that only it sets (or that it answers as null): an import leaves them out. */
const READ_ONLY = ['id', 'tenant_id', 'state', 'requested', 'formula', 'created_by', 'created_at', 'modified_by', 'modified_at'];

export class ReactorExport {
  constructor(
    private readonly deps: { folder: ProxyFolder; reactors: ReactorStore; identities: FileIdentities; secrets: SecretStore; applications: ApplicationStore },
  ) {}

  /** Moves a reactor made through the API into the folder: from then on it is the file's reactor, with the same id. */
  exportReactor(id: string, file: string | undefined, secretKeys: readonly string[]): Promise<DefinitionFilesWritten> {
    const reactor = this.deps.reactors.requireWritable(id);
    const { id: reactorId, created_at } = reactor;
    // What a failed reactor asked for is what its file should hold: the folder reports what it still lacks.
    const definition = reactor.requested?.definition ?? reactor;
    return this.write(definition, { id: reactorId, key: '', created_at }, file ?? fileBaseOf(reactor.name, 'reactor'), secretKeys, () => this.deps.reactors.delete(reactorId, workbenchCause()));
  }

  /** Writes the hosted service's reactor object as a reactor file, with its id when no reactor here has it. */
  async importReactor(json: string, file: string | undefined, secretKeys: readonly string[]): Promise<DefinitionFilesWritten> {
    const hosted = hostedObject(json, 'reactor', 'GET /reactors/{id}');
    const body: Record<string, unknown> = { ...hosted };
    for (const field of READ_ONLY) delete body[field];
    // The hosted object shows the linked application whole; the body names it by id.
    const application = body.application as { id?: unknown } | null | undefined;
    body.application = application ? { id: application.id } : null;
    const definition = parseReactorRequest(body);
    checkApplication(definition, this.deps.applications);
    const identity = await keptIdentity(hosted, '', async (id) => this.deps.reactors.list([id.toLowerCase()], undefined).length > 0 || (await this.deps.identities.hasId(id)));
    return await this.write(definition, identity, file ?? fileBaseOf(definition.name, 'reactor'), secretKeys);
  }

  /** Writes `definition` as `<base>.reactor.json` and its code as `<base>.reactor.js`. */
  private write(definition: ReactorDefinition, identity: FileIdentity | null, base: string, secretKeys: readonly string[], commit?: () => Promise<void>): Promise<DefinitionFilesWritten> {
    const codeFile = `${base}.reactor${CODE_FILE_SUFFIX}`;
    return writeDefinitionFiles(this.deps.folder, this.deps.secrets, secretKeys, {
      path: base + REACTOR_FILE_SUFFIX,
      configuration: definition.configuration,
      secretsFrom: `reactor-${base}`,
      json: (configuration) => ({
        name: definition.name,
        code_file: codeFile,
        configuration,
        ...(definition.application_id !== null && { application: { id: definition.application_id } }),
        ...(definition.runtime !== null && { runtime: definition.runtime }),
      }),
      code: [[codeFile, definition.code]],
      identities: this.deps.identities,
      identity,
      commit,
    });
  }
}
