/**
 * Reactor files of the proxies folder (docs/api.md, Reactors as files): `*.reactor.json` holds the POST /reactors
 * body, where `code_file` may name a `.js` file beside it in place of `code`. It is checked as the API checks a
 * reactor, and served with the id the engine keeps for its path.
 */
import type { ApplicationStore } from '../access/application-store';
import type { FileIdentities } from '../proxies/files/file-identities';
import { resolvedConfiguration } from '../proxies/files/file-secrets';
import { servedFromFile } from '../proxies/files/file-served';
import type { FolderKind } from '../proxies/files/proxy-folder';
import type { SecretStore } from '../secrets/secret-store';
import type { ReactorDefinition, StoredReactor } from './reactor-model';
import { parseReactorRequest } from './reactor-requests';
import { checkApplication, dependencyFailure } from './reactor-routes';
import type { ReactorStore } from './reactor-store';

/** Claimed before the proxies' `.json`: a reader of the repository tells a reactor from a proxy by the name alone. */
export const REACTOR_FILE_SUFFIX = '.reactor.json';

/** The fields of a reactor file: the POST /reactors body's, with code_file. */
const FIELDS = new Set(['name', 'code', 'code_file', 'configuration', 'application', 'application_id', 'runtime']);

export interface ReactorFileDeps {
  reactors: ReactorStore;
  identities: FileIdentities;
  applications: ApplicationStore;
  secrets: SecretStore;
  /** Where node22 code finds its dependencies (`serve --code-dependencies DIR`); null: none. */
  dependenciesDir: string | null;
  /** A reactor file is being loaded: the code runtime gets ready before its first react, or refuses it where code is off. */
  codeLoaded(): void;
}

export function reactorFolderKind(deps: ReactorFileDeps): FolderKind<ReactorDefinition> {
  const { reactors, secrets } = deps;
  return {
    kind: 'reactor',
    suffix: REACTOR_FILE_SUFFIX,
    identities: deps.identities,
    file: {
      noun: 'reactor',
      body: 'POST /reactors',
      fields: FIELDS,
      kept: ['id'],
      codeSlots: (json) => [
        {
          at: '',
          holder: json,
          put(next) {
            delete json.code_file;
            Object.assign(json, next);
          },
        },
      ],
      check(json) {
        const definition = parseReactorRequest(json);
        checkApplication(definition, deps.applications);
        deps.codeLoaded();
        return { definition, configuration: definition.configuration, lacking: dependencyFailure(definition, deps.dependenciesDir)?.error_details ?? null };
      },
    },
    install({ path, folder, identity }, definition, before) {
      const reactor: StoredReactor = {
        ...definition,
        ...servedFromFile(path, identity, before !== null),
        file: {
          path,
          folder,
          atCall() {
            const { configuration, values } = resolvedConfiguration(definition.configuration, secrets, path);
            return { configuration, secrets: values };
          },
        },
      };
      reactors.install(reactor);
      return reactor;
    },
    uninstall: (id) => reactors.uninstall(id),
  };
}
